import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Rewrites id_tokens the way the OpenID Foundation's RP conformance suite's misbehaving provider does.
enum TokenTampering {
    /// The claims of a compact JWS (not verified).
    static func claims(of token: String) throws -> [String: JSONValue] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw E2EFailure("not a compact JWS") }
        guard let object = try JSONValue.parse(try Base64URL.decode(parts[1])).objectValue else {
            throw E2EFailure("claims are not an object")
        }
        return object
    }

    /// The token's claims changed by `change`, signed again with `key` (RS256, the key's `kid`).
    static func resigned(_ token: String, key: JWK, _ change: (inout [String: JSONValue]) -> Void) throws -> String {
        var object = try claims(of: token)
        change(&object)
        return try JWS.sign(payload: JSONValue.object(object).serializedBytes(), key: key, algorithm: .rs256)
    }

    /// The same header and claims with every signature byte XORed with 0x5A (InvalidateIdTokenSignature).
    static func corruptedSignature(_ token: String) throws -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw E2EFailure("not a compact JWS") }
        let signature = try Base64URL.decode(parts[2]).map { $0 ^ 0x5A }
        return parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
    }

    /// The same claims under `{"alg":"none"}` with an empty signature.
    static func unsigned(_ token: String) throws -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw E2EFailure("not a compact JWS") }
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        return header + "." + parts[1] + "."
    }

    /// Applies `rewrite` to the `id_token` of a JSON token response (other members untouched). When there is
    /// no id_token to rewrite or `rewrite` throws, the body is replaced by text that is not a token response,
    /// so a test expecting the rewritten token to be accepted (or refused for its own reason) fails instead
    /// of passing on the untouched token.
    static func rewritingIDToken(
        _ response: inout HTTPServerResponse, _ rewrite: (String) throws -> String
    ) {
        guard var object = (try? JSONValue.parse(response.body))?.objectValue,
            let token = object["id_token"]?.stringValue, let rewritten = try? rewrite(token)
        else {
            response.body = Array("the test's id_token rewrite failed".utf8)
            return
        }
        object["id_token"] = .string(rewritten)
        response.body = JSONValue.object(object).serializedBytes()
    }

    /// Applies `change` to a JSON object body.
    static func rewritingJSON(_ response: inout HTTPServerResponse, _ change: (inout [String: JSONValue]) -> Void) {
        guard var object = (try? JSONValue.parse(response.body))?.objectValue else { return }
        change(&object)
        response.body = JSONValue.object(object).serializedBytes()
    }
}

extension TokenTampering {
    /// The same claims signed with `key` under a header without `kid`.
    static func resignedWithoutKeyID(_ token: String, key: JWK) throws -> String {
        let anonymous = try JWK(pkcs8PEM: try key.pkcs8PEM(), keyID: nil)
        return try JWS.sign(payload: JSONValue.object(try claims(of: token)).serializedBytes(), key: anonymous)
    }

    /// Algorithm confusion: the claims "signed" with HS256 whose MAC key is the provider's public key JSON.
    static func hmacSigned(_ token: String, key: JWK) throws -> String {
        let header = Base64URL.encode(Array("{\"alg\":\"HS256\",\"kid\":\"\(key.keyID ?? "")\"}".utf8))
        let payload = Base64URL.encode(JSONValue.object(try claims(of: token)).serializedBytes())
        let input = header + "." + payload
        let mac = Digest.hmacSHA256(
            key: key.publicKey.jsonValue().serializedBytes(), message: Array(input.utf8))
        return input + "." + Base64URL.encode(mac)
    }
}
