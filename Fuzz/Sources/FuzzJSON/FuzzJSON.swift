import AuthFlowJOSE
import FuzzSupport

/// The JSON parser: never crashes or hangs, and whatever it accepts serializes to text it parses back to
/// the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let value = try? JSONValue.parse(bytes(data, count)) else { return 0 }
    let again: JSONValue
    do {
        again = try JSONValue.parse(value.serializedBytes())
    } catch {
        fatalError("serialized JSON does not parse back: \(error)")
    }
    if again != value, value.serialized() != again.serialized() {
        fatalError("JSON does not round-trip")
    }
    return 0
}
