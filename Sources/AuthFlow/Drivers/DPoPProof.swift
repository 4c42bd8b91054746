import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// DPoP proofs (RFC 9449 §4): a JWT signed by the grant's key, sent in the `DPoP` header of each request to the
/// provider's token, userinfo and revocation endpoints.
///
/// Header `typ: dpop+jwt`, the signing algorithm and the public key as `jwk`; claims `jti` (fresh random),
/// `htm` (the request's method), `htu` (its URL without query and fragment, §4.2), `iat`, and, when the request
/// presents an access token, `ath` (base64url SHA-256 of it, §4.2) and the server's latest `nonce` (§8, §9)
/// when it gave one.
package enum DPoPProof {
    /// The proof for `request` signed with `key`.
    ///
    /// - Throws: `SignInError` `invalid_request` when the key cannot sign (never for a key AuthFlow generated).
    static func make(
        for request: HTTPClientRequest, key: JWK, accessToken: String?, nonce: String?, now: Date,
        random: any SecureRandom
    ) throws(SignInError) -> String {
        var claims: [String: JSONValue] = [
            "jti": .string(Base64URL.encode(random.bytes(24))),
            "htm": .string(request.method),
            "htu": .string(targetURI(request.url)),
            "iat": .integer(Int64(now.timeIntervalSince1970.rounded(.down))),
        ]
        if let accessToken { claims["ath"] = .string(Base64URL.encode(Digest.sha256(Array(accessToken.utf8)))) }
        if let nonce { claims["nonce"] = .string(nonce) }
        do throws(JOSEError) {
            // `jsonValue()` writes a key's public members only (the private ones need `exportPrivate()`), so the
            // header gets the public key without `publicKey` importing it into OpenSSL again at every proof.
            return try JWT.sign(
                claims: claims, key: key, extraHeader: ["typ": .string("dpop+jwt"), "jwk": key.jsonValue()])
        } catch {
            throw SignInError(.invalidRequest, "expected the DPoP key to sign a proof, found \(error.code)")
        }
    }

    /// `url` without its query and fragment (RFC 9449 §4.2, `htu`).
    package static func targetURI(_ url: String) -> String {
        let end = url.firstIndex { $0 == "?" || $0 == "#" } ?? url.endIndex
        return String(url[..<end])
    }

    /// The origin (`scheme://host[:port]`) of `url`, the key under which a server's nonce is kept.
    static func origin(_ url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return targetURI(url) }
        return "\(scheme.lowercased())://\(host.lowercased())" + (components.port.map { ":\($0)" } ?? "")
    }

    /// Whether `response` asks for a proof with a server nonce (RFC 9449 §8, §9): a 400 whose JSON `error` is
    /// `use_dpop_nonce` (an authorization server), or a 401 whose `WWW-Authenticate` names that error (a resource
    /// server).
    static func asksForNonce(_ response: HTTPClientResponse) -> Bool {
        switch response.status {
        case 400:
            return (try? JSONValue.parse(response.body))?["error"]?.stringValue == "use_dpop_nonce"
        case 401:
            return response.headers.values("WWW-Authenticate").contains { $0.contains("use_dpop_nonce") }
        default:
            return false
        }
    }
}

/// The latest DPoP nonce each server gave (RFC 9449 §8.2: a client uses the most recent one), by origin; in
/// memory and bounded, so a flood of origins cannot grow it.
package final class DPoPNonces: Sendable {
    /// How many origins are kept; beyond it the table is emptied (a server asks again, costing one retry).
    static let capacity = 256

    private let nonces = Mutex<[String: String]>([:])

    /// An empty table.
    package init() {}

    /// The latest nonce of `url`'s origin.
    func nonce(for url: String) -> String? {
        let origin = DPoPProof.origin(url)
        return nonces.withLock { $0[origin] }
    }

    /// Keeps `nonce` as `url`'s origin's latest (a header value of visible ASCII, at most 512 bytes).
    func remember(_ nonce: String, for url: String) {
        guard !nonce.isEmpty, nonce.utf8.count <= 512, nonce.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return }
        let origin = DPoPProof.origin(url)
        nonces.withLock { table in
            if table[origin] == nil, table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[origin] = nonce
        }
    }
}
