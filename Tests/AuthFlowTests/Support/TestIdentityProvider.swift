import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Signs id_tokens and answers token/userinfo requests like a provider would, without any network.
struct TestIdentityProvider: Sendable {
    static let issuer = "https://idp.test"
    static let subject = "user-1"
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    let key: JWK
    let otherKey: JWK

    static let shared: TestIdentityProvider = {
        do {
            return TestIdentityProvider(
                key: try JWK.generateRSA(keyID: "k1"), otherKey: try JWK.generateRSA(keyID: "k2"))
        } catch {
            fatalError("test key generation failed: \(error)")
        }
    }()

    var keySet: JWKSet { JWKSet(keys: [key.publicKey]) }
    var rotatedKeySet: JWKSet { JWKSet(keys: [key.publicKey, otherKey.publicKey]) }

    /// Standard claims for `nonce`, with `changes` applied (a `nil` value removes the claim).
    func claims(nonce: String?, now: Date, changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        let t = Int64(now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(Self.issuer), "sub": .string(Self.subject), "aud": .string(TestProviders.clientID),
            "exp": .integer(t + 300), "iat": .integer(t), "email": .string("user@example.com"),
            "email_verified": .bool(true), "name": .string("Test User"),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    func sign(_ claims: [String: JSONValue], with signer: JWK? = nil, algorithm: JWSAlgorithm? = nil) throws -> String {
        try JWS.sign(
            payload: Array(JSONValue.object(claims).serialized().utf8), key: signer ?? key, algorithm: algorithm)
    }

    func idToken(nonce: String?, now: Date, changes: [String: JSONValue?] = [:]) throws -> String {
        try sign(claims(nonce: nonce, now: now, changes: changes))
    }

    /// An unsigned (`alg: none`) token with the standard claims.
    func unsignedToken(nonce: String?, now: Date) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array(JSONValue.object(claims(nonce: nonce, now: now)).serialized().utf8))
        return header + "." + payload + "."
    }

    /// The JWKS document for `set`, as a provider serves it.
    static func jwksBody(_ set: JWKSet) -> [UInt8] {
        Array(set.jsonValue().serialized().utf8)
    }

    static func json(_ object: [String: JSONValue], status: Int = 200) -> HTTPClientResponse {
        HTTPClientResponse(
            status: status, headers: ["Content-Type": "application/json"],
            body: Array(JSONValue.object(object).serialized().utf8))
    }

    static func tokenResponse(idToken: String?, accessToken: String = "at-secret-value") -> HTTPClientResponse {
        var object: [String: JSONValue] = [
            "access_token": .string(accessToken), "token_type": .string("Bearer"), "expires_in": .integer(3600),
            "refresh_token": .string("rt-secret-value"),
        ]
        if let idToken { object["id_token"] = .string(idToken) }
        return json(object)
    }

    static func userinfo(subject: String = TestIdentityProvider.subject) -> HTTPClientResponse {
        json([
            "sub": .string(subject), "email": .string("user@example.com"), "email_verified": .bool(true),
            "name": .string("Test User"),
        ])
    }
}

/// Reads a URL's query or a form body into a dictionary of first values (tests only).
enum Query {
    static func parameters(ofURL url: String) -> [String: String] {
        guard let components = URLComponents(string: url) else { return [:] }
        var result: [String: String] = [:]
        for item in components.queryItems ?? [] where result[item.name] == nil { result[item.name] = item.value ?? "" }
        return result
    }

    static func form(_ body: [UInt8]?) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in FormURLEncoding.decode(String(decoding: body ?? [], as: UTF8.self))
        where result[name] == nil {
            result[name] = value
        }
        return result
    }
}
