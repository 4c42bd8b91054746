import AuthFlowJOSE
import FuzzSupport

@testable import AuthFlowServer

/// The flow cookie's `open`, on arbitrary text and on tampered sealed values: it opens only what this key
/// sealed, to exactly what was sealed.
let flowCookie = FlowCookie(secret: Array("fuzz-secret-0123456789abcdef-0123456789".utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlowCookie(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = bytes(data, count)
    _ = flowCookie.open(String(decoding: input, as: UTF8.self))
    guard input.count >= 2 else { return 0 }
    // Round trip of a binding made from the input, then one character of the sealed value changed.
    let binding = Base64URL.encode(Digest.sha256(input))
    let sealed = flowCookie.seal(binding)
    guard flowCookie.open(sealed) == binding else { fatalError("a sealed flow cookie does not open") }
    var characters = Array(sealed)
    let index = Int(input[0]) % characters.count
    let replacement = Character(Unicode.Scalar(input[1] & 0x7F))
    guard characters[index] != replacement else { return 0 }
    characters[index] = replacement
    if let opened = flowCookie.open(String(characters)), opened != binding {
        fatalError("a tampered flow cookie opened to another binding")
    }
    return 0
}
