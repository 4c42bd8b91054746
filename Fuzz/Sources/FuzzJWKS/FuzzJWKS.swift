import AuthFlowJOSE
import FuzzSupport

/// JWK and JWKS documents: every key that loads exports JSON that loads again with the same thumbprint
/// inputs (kty, kid), and a key set never holds an unusable key.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWKS(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = bytes(data, count)
    if let key = try? JWK(jsonData: input) {
        guard let again = try? JWK(json: key.jsonValue()) else { fatalError("an exported JWK does not load") }
        if again.keyID != key.keyID { fatalError("the kid changed on export") }
    }
    if let set = try? JWKSet(jsonData: input) {
        for key in set.keys where (try? JWK(json: key.jsonValue())) == nil {
            fatalError("a key set holds a key whose export does not load")
        }
    }
    return 0
}
