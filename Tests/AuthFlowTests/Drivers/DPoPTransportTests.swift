import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization
import Testing

@testable import AuthFlow

/// The provider transport's DPoP (RFC 9449) against a scripted server: the proof's header and claims, a Bearer
/// token presented as `DPoP` with its hash, a resource's 401 nonce challenge answered exactly once, the nonce
/// kept per origin, and a second challenge returned to the caller.
@Suite struct DPoPTransportTests {
    func transport(_ client: FakeHTTPClient) -> ProviderTransport {
        ProviderTransport(
            httpClient: client, clock: ManualClock(Date(timeIntervalSince1970: 1_800_000_000)),
            observer: NoProviderObserver())
    }

    static func claims(_ proof: String?) throws -> (header: JSONValue, claims: JWTClaims) {
        let parts = try #require(proof).split(separator: ".")
        return (
            try JSONValue.parse(try Base64URL.decode(parts[0])), try JWTClaims(payload: try Base64URL.decode(parts[1]))
        )
    }

    static func challenge() -> HTTPClientResponse {
        HTTPClientResponse(
            status: 401,
            headers: ["WWW-Authenticate": "DPoP error=\"use_dpop_nonce\"", "DPoP-Nonce": "n-\(UUID().uuidString)"])
    }

    @Test func aResourceChallengeIsAnsweredOnceWithTheNonceAndTheTokenHash() async throws {
        let client = FakeHTTPClient()
        let calls = Mutex(0)
        client.route("https://rs.example/") { request in
            calls.withLock { $0 += 1 }
            let (_, claims) = try Self.claims(request.headers["DPoP"])
            return claims.nonce == nil ? Self.challenge() : HTTPClientResponse(status: 200, body: Array("{}".utf8))
        }
        let key = try JWK.generateP256()
        var request = HTTPClientRequest(url: "https://rs.example/me?x=1#frag")
        request.setBearer("the-token")
        let answer = try await transport(client).send(request, endpoint: .userinfo, provider: "p", dpopKey: key)
        #expect(answer.status == 200)
        #expect(calls.withLock { $0 } == 2)
        let sent = client.requests
        #expect(sent.allSatisfy { $0.headers["Authorization"] == "DPoP the-token" })
        let (header, first) = try Self.claims(sent[0].headers["DPoP"])
        let (_, second) = try Self.claims(sent[1].headers["DPoP"])
        #expect(header["typ"] == "dpop+jwt" && header["alg"] == "ES256")
        #expect(try JWK(json: try #require(header["jwk"])).thumbprint() == key.thumbprint())
        #expect(header["jwk"]?["d"] == nil, "the proof carries the public key only")
        #expect(first.string("htm") == "GET" && first.string("htu") == "https://rs.example/me")
        #expect(first.issuedAt == 1_800_000_000)
        #expect(first.string("ath") == Base64URL.encode(Digest.sha256(Array("the-token".utf8))))
        #expect(first.string("jti") != second.string("jti"))
        #expect(first.nonce == nil && second.nonce?.hasPrefix("n-") == true)
    }

    @Test func aSecondChallengeIsReturnedAndTheLatestNonceIsKeptPerOrigin() async throws {
        let client = FakeHTTPClient()
        client.route("https://as.example/") { _ in
            HTTPClientResponse(
                status: 400, headers: ["DPoP-Nonce": "as-\(UUID().uuidString)"],
                body: Array(#"{"error":"use_dpop_nonce"}"#.utf8))
        }
        let key = try JWK.generateP256()
        let transport = transport(client)
        let answer = try await transport.send(
            .form(url: "https://as.example/token", fields: [("grant_type", "refresh_token")]), endpoint: .token,
            provider: "p", dpopKey: key)
        #expect(answer.status == 400, "the second challenge is the caller's to refuse")
        #expect(client.requests.count == 2, "exactly one retry")
        #expect(transport.nonces.nonce(for: "https://as.example/other") == answer.headers["DPoP-Nonce"])
        #expect(transport.nonces.nonce(for: "https://rs.example/") == nil)
        // Without a key, nothing is added.
        _ = try await transport.send(
            .form(url: "https://as.example/token", fields: []), endpoint: .token, provider: "p")
        #expect(client.requests.last?.headers["DPoP"] == nil)
    }

    @Test func theTokenAnswerMustSayDPoPAfterAProof() throws {
        let bearer = HTTPClientResponse(status: 200, body: Array(#"{"access_token":"a","token_type":"Bearer"}"#.utf8))
        let key = try JWK.generateP256()
        #expect(throws: SignInError.self) {
            _ = try TokenResponse.tokens(from: bearer, expected: "tokens", requireIDToken: false, dpopKey: key)
        }
        let bound = HTTPClientResponse(status: 200, body: Array(#"{"access_token":"a","token_type":"dpop"}"#.utf8))
        let tokens = try TokenResponse.tokens(from: bound, expected: "tokens", requireIDToken: false, dpopKey: key)
        #expect(tokens.dpopKey == key)
        #expect(throws: SignInError.self) {
            _ = try TokenResponse.tokens(from: bound, expected: "tokens", requireIDToken: false)
        }
    }
}
