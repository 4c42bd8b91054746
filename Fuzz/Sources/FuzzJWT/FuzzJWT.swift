import AuthFlowJOSE
import FuzzSupport

/// Compact JWS/JWT parsing and verification against a fixed key set: size cap, base64url, header, key
/// choice by `kid`, signature, then the claim checks. A token that verifies must carry the issuer and
/// audience checked.
let verifier = JWTVerifier(
    allowedAlgorithms: [.rs256, .ps256, .es256],
    checks: ClaimChecks(issuers: [FixedKeys.issuer], audiences: [FixedKeys.audience], nonce: "fuzz-nonce"))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let token = text(data, count)
    if let claims = try? verifier.verify(token, keys: FixedKeys.keySet, now: FixedKeys.now) {
        guard claims.issuer == FixedKeys.issuer else { fatalError("a token with another issuer verified") }
    }
    return 0
}
