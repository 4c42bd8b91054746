import AuthFlowJOSE
import Foundation
import FuzzSupport

@testable import AuthFlow

/// The sealed flow cookie (`FlowRecordSeal`), on arbitrary text and on tampered sealed values: it opens only
/// what this key sealed, under the cookie name and provider it was sealed for, to exactly what was sealed.
let seal: FlowRecordSeal = {
    do {
        return try FlowRecordSeal(
            secret: Array("fuzz-secret-0123456789abcdef-0123456789".utf8), random: SystemRandom())
    } catch {
        fatalError("the fuzz flow-cookie key cannot be derived: \(error)")
    }
}()
let cookieName = "authflow_flow_0123abcd"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlowCookie(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = bytes(data, count)
    _ = seal.open(String(decoding: input, as: UTF8.self), cookieName: cookieName, provider: "google")
    guard input.count >= 2 else { return 0 }
    // Round trip of a record made from the input, then one character of the sealed value changed.
    let digest = Base64URL.encode(Digest.sha256(input))
    let record = FlowRecord(
        provider: "google", state: digest, nonce: input[0] & 1 == 0 ? digest : nil, pkceVerifier: digest,
        returnTo: "/", browserBindingDigest: digest, intent: .login,
        createdAt: Date(timeIntervalSince1970: 1_750_000_000))
    let sealed: String
    do {
        sealed = try seal.seal(record, cookieName: cookieName)
    } catch {
        fatalError("a flow record cannot be sealed: \(error)")
    }
    guard seal.open(sealed, cookieName: cookieName, provider: "google") == record else {
        fatalError("a sealed flow cookie does not open to its record")
    }
    if seal.open(sealed, cookieName: cookieName + "x", provider: "google") != nil
        || seal.open(sealed, cookieName: cookieName, provider: "apple") != nil
    {
        fatalError("a flow cookie opened under another name or for another provider")
    }
    var characters = Array(sealed)
    let index = Int(input[0]) % characters.count
    let replacement = Character(Unicode.Scalar(input[1] & 0x7F))
    guard characters[index] != replacement else { return 0 }
    characters[index] = replacement
    if let opened = seal.open(String(characters), cookieName: cookieName, provider: "google"), opened != record {
        fatalError("a tampered flow cookie opened to another record")
    }
    return 0
}
