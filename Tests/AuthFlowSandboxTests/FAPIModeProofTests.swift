import AuthFlow
import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

/// The sandbox's FAPI mode is strict about DPoP proofs (RFC 9449 §4.3): each field of a proof broken on its own
/// is refused at the token endpoint (400 `invalid_dpop_proof`, or `use_dpop_nonce` for the nonce) and at the
/// userinfo endpoint (401 with `WWW-Authenticate: DPoP`), so the client's proofs passing there means something.
extension FAPIModeTests {
    struct ProofParts {
        var typ: JSONValue? = "dpop+jwt"
        var jwk: JSONValue?
        var htm: String = "POST"
        var htu: String
        var iat: Int64
        var jti: String? = UUID().uuidString
        var nonce: String?
        var ath: String?
    }

    static func proof(_ parts: ProofParts, key: JWK, signer: JWK? = nil) throws -> String {
        var claims: [String: JSONValue] = [
            "htm": .string(parts.htm), "htu": .string(parts.htu), "iat": .integer(parts.iat),
        ]
        if let jti = parts.jti { claims["jti"] = .string(jti) }
        if let nonce = parts.nonce { claims["nonce"] = .string(nonce) }
        if let ath = parts.ath { claims["ath"] = .string(ath) }
        var header: [String: JSONValue] = [:]
        if let typ = parts.typ { header["typ"] = typ }
        header["jwk"] = parts.jwk ?? key.publicKey.jsonValue()
        return try JWS.sign(
            payload: Array(JSONValue.object(claims).serialized().utf8), key: signer ?? key, algorithm: .es256,
            extraHeader: header)
    }

    func post(_ url: String, proof: String?) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest.form(
            url: url, fields: [("grant_type", "refresh_token"), ("refresh_token", "r"), ("client_id", "fapi-client")])
        if let proof { request.headers["DPoP"] = proof }
        return try await Self.client.send(request)
    }

    @Test func everyFieldOfAProofIsCheckedAtTheTokenEndpoint() async throws {
        try await withStand(configuredKey: try JWK.generateP256()) { stand in
            let token = stand.sandbox.endpoints(for: .google).token
            let key = try JWK.generateP256()
            let now = Int64(stand.clock.now().timeIntervalSince1970)
            // A proof without a nonce is challenged; the challenge carries the nonce.
            let first = try await post(token, proof: try Self.proof(ProofParts(htu: token, iat: now), key: key))
            #expect(first.status == 400)
            #expect(first.bodyText.contains("use_dpop_nonce"))
            let nonce = try #require(first.headers["DPoP-Nonce"])
            let good = ProofParts(htu: token, iat: now, nonce: nonce)

            var broken: [(String, String?)] = [("no proof", nil)]
            var part = good
            part.typ = "JWT"
            broken.append(("typ", try Self.proof(part, key: key)))
            part = good
            part.jwk = key.exportPrivate()
            broken.append(("private jwk", try Self.proof(part, key: key)))
            broken.append(("signature", try Self.proof(good, key: key, signer: try JWK.generateP256())))
            part = good
            part.htm = "GET"
            broken.append(("htm", try Self.proof(part, key: key)))
            part = good
            part.htu = token + "/other"
            broken.append(("htu", try Self.proof(part, key: key)))
            part = good
            part.iat = now - 600
            broken.append(("stale iat", try Self.proof(part, key: key)))
            part = good
            part.iat = now + 600
            broken.append(("future iat", try Self.proof(part, key: key)))
            part = good
            part.jti = nil
            broken.append(("jti", try Self.proof(part, key: key)))
            for (field, proof) in broken {
                let answer = try await post(token, proof: proof)
                #expect(answer.status == 400, "\(field)")
                #expect(answer.bodyText.contains("invalid_dpop_proof"), "\(field): \(answer.bodyText)")
            }
            part = good
            part.nonce = "not-the-nonce"
            let wrongNonce = try await post(token, proof: try Self.proof(part, key: key))
            #expect(wrongNonce.bodyText.contains("use_dpop_nonce"))

            // The good proof passes the DPoP checks (the client authentication is what fails next); used again, its
            // jti is spent.
            let valid = try Self.proof(good, key: key)
            let passed = try await post(token, proof: valid)
            #expect(passed.status == 401, "\(passed.bodyText)")
            #expect(passed.bodyText.contains("invalid_client"))
            let replayed = try await post(token, proof: valid)
            #expect(replayed.bodyText.contains("invalid_dpop_proof"))
            #expect(replayed.bodyText.contains("jti"))
        }
    }

    @Test func theUserinfoEndpointRequiresADPoPTokenWithItsHash() async throws {
        try await withStand(configuredKey: try JWK.generateP256()) { stand in
            let result = try await signIn(stand)
            let key = try #require(result.tokens.dpopKey)
            let userinfo = try #require(stand.sandbox.endpoints(for: .google).userinfo)
            let accessToken = result.tokens.accessToken
            let now = Int64(stand.clock.now().timeIntervalSince1970)
            let ath = Base64URL.encode(Digest.sha256(Array(accessToken.utf8)))
            func get(_ scheme: String, _ proof: String?) async throws -> HTTPClientResponse {
                var request = HTTPClientRequest(url: userinfo)
                request.headers["Authorization"] = scheme + " " + accessToken
                if let proof { request.headers["DPoP"] = proof }
                return try await Self.client.send(request)
            }
            let challenge = try await get(
                "DPoP", try Self.proof(ProofParts(htm: "GET", htu: userinfo, iat: now, ath: ath), key: key))
            #expect(challenge.status == 401)
            #expect(challenge.headers["WWW-Authenticate"]?.contains("use_dpop_nonce") == true)
            let nonce = try #require(challenge.headers["DPoP-Nonce"])
            let good = ProofParts(htm: "GET", htu: userinfo, iat: now, nonce: nonce, ath: ath)

            let bearer = try await get("Bearer", try Self.proof(good, key: key))
            #expect(bearer.status == 401)
            var part = good
            part.ath = Base64URL.encode(Digest.sha256(Array("another token".utf8)))
            let wrongHash = try await get("DPoP", try Self.proof(part, key: key))
            #expect(wrongHash.status == 401)
            #expect(wrongHash.headers["WWW-Authenticate"]?.contains("invalid_dpop_proof") == true)
            part = good
            part.jti = UUID().uuidString
            let otherKey = try await get("DPoP", try Self.proof(part, key: try JWK.generateP256()))
            #expect(otherKey.status == 401)
            #expect(otherKey.headers["WWW-Authenticate"]?.contains("invalid_token") == true)
            let ok = try await get("DPoP", try Self.proof(good, key: key))
            #expect(ok.status == 200, "\(ok.bodyText)")
        }
    }
}
