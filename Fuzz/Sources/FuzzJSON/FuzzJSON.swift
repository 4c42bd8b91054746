import FuzzSupport

@testable import AuthFlowJOSE

/// The JSON parser: never crashes or hangs, and whatever it accepts serializes to text it parses back to
/// the same value. The claims reader (which indexes an object and decodes members on use) accepts
/// exactly the objects the parser accepts and reads the same members from them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = bytes(data, count)
    let claims = try? JWTClaims(payload: input)
    guard let value = try? JSONValue.parse(input) else {
        if claims != nil { fatalError("the claims reader accepted JSON the parser refuses") }
        return 0
    }
    if claims?.json != value.objectValue { fatalError("the claims reader and the parser disagree") }
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
