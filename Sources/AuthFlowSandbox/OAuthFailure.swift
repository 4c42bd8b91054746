import AuthFlowHTTP
import AuthFlowJOSE

/// A refusal at a token, userinfo or revocation endpoint, rendered in the style of the provider that refuses.
struct OAuthFailure: Error, Sendable {
    /// The OAuth 2.0 `error` code (`invalid_grant`, `invalid_client`, …).
    let error: String
    /// The `error_description`: what was expected and what was found; never a secret, token or code.
    let description: String
    /// The HTTP status.
    let status: Int
    /// Facebook only: the Graph error `code` (and optional `error_subcode`).
    var graphCode: Int
    var graphSubcode: Int?
    /// A fresh DPoP nonce to send in `DPoP-Nonce` (RFC 9449 §8), with `use_dpop_nonce`.
    var dpopNonce: String?

    init(_ error: String, _ description: String, status: Int = 400, graphCode: Int = 100, graphSubcode: Int? = nil) {
        self.error = error
        self.description = description
        self.status = status
        self.graphCode = graphCode
        self.graphSubcode = graphSubcode
    }

    static func invalidRequest(_ description: String) -> OAuthFailure {
        OAuthFailure("invalid_request", description)
    }
    static func invalidGrant(_ description: String, graphSubcode: Int? = nil) -> OAuthFailure {
        OAuthFailure("invalid_grant", description, graphSubcode: graphSubcode)
    }
    static func invalidClient(_ description: String, status: Int = 401, graphCode: Int = 1) -> OAuthFailure {
        OAuthFailure("invalid_client", description, status: status, graphCode: graphCode)
    }
    static func unsupportedGrantType(_ found: String?) -> OAuthFailure {
        OAuthFailure(
            "unsupported_grant_type",
            "grant_type must be authorization_code or refresh_token, found " + (found.map { "'\(clip($0))'" } ?? "none")
        )
    }

    /// `{"error": …, "error_description": …}` with `Cache-Control: no-store` (RFC 6749 §5.2).
    func oauthResponse() -> HTTPServerResponse {
        var response = HTTPServerResponse.oauthError(error, description: description, status: status)
        response.headers["Pragma"] = "no-cache"
        if let dpopNonce { response.headers["DPoP-Nonce"] = dpopNonce }
        if status == 401 {
            response.headers["WWW-Authenticate"] = "Basic realm=\"sandbox\", error=\"\(error)\""
        }
        return response
    }

    /// Graph API style: `{"error": {"message", "type": "OAuthException", "code", "error_subcode"?, "fbtrace_id"}}`.
    func graphResponse() -> HTTPServerResponse {
        var object: [String: JSONValue] = [
            "message": .string(description), "type": .string("OAuthException"), "code": .integer(Int64(graphCode)),
            "fbtrace_id": .string("sandbox"),
        ]
        if let graphSubcode { object["error_subcode"] = .integer(Int64(graphSubcode)) }
        var response = HTTPServerResponse.json(
            JSONValue.object(["error": .object(object)]).serialized(), status: status)
        response.headers["Cache-Control"] = "no-store"
        let quotedMessage = String(description.unicodeScalars.filter { $0 != "\"" && $0 != "\\" })
        response.headers["WWW-Authenticate"] = "OAuth \"Facebook Platform\" \"\(error)\" \"\(quotedMessage)\""
        return response
    }
}

/// Shortens a client-supplied value before quoting it in an error description.
func clip(_ text: String, limit: Int = 64) -> String {
    var result = ""
    for scalar in text.unicodeScalars.prefix(limit) {
        result.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? "?" : scalar)
    }
    return text.unicodeScalars.count > limit ? result + "…" : result
}
