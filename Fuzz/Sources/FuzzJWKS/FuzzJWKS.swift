import AuthFlowJOSE
import FuzzSupport

/// JWK and JWKS documents: every key that loads, alone or in a set, exports its full JSON (`exportPrivate`), and
/// an asymmetric key its public JSON (`jsonValue`), that loads again with the same `kid`. A symmetric (`oct`) key
/// has no public form: its `jsonValue` holds no `k` and must not load as a key.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWKS(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = bytes(data, count)
    if let key = try? JWK(jsonData: input) { checkExports(key) }
    if let set = try? JWKSet(jsonData: input) {
        for key in set.keys { checkExports(key) }
    }
    return 0
}

func checkExports(_ key: JWK) {
    guard let full = try? JWK(json: key.exportPrivate()) else { fatalError("a JWK's full export does not load") }
    if full.keyID != key.keyID { fatalError("the kid changed on export") }
    if key.keyType == "oct" {
        if key.jsonValue()["k"] != nil { fatalError("a symmetric key's public JSON holds its secret") }
        return
    }
    guard let publicKey = try? JWK(json: key.jsonValue()) else { fatalError("an exported public JWK does not load") }
    if publicKey.keyID != key.keyID { fatalError("the kid changed on public export") }
}
