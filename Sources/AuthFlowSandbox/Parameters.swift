import AuthFlowHTTP
import Foundation

/// The parameters of one request (query string or form body), read the way an OAuth server must:
/// an empty value counts as absent, and a repeated parameter makes the request invalid (RFC 6749 §3.1).
struct Parameters: Sendable {
    static let maximumValueBytes = 4096

    let pairs: [(String, String)]

    init(_ pairs: [(String, String)]) { self.pairs = pairs }

    /// The value of `name`, or `nil` when absent or empty.
    subscript(name: String) -> String? {
        guard let value = pairs.first(where: { $0.0 == name })?.1, !value.isEmpty else { return nil }
        return value
    }

    /// Whether the parameter was sent at all (even empty).
    func contains(_ name: String) -> Bool { pairs.contains { $0.0 == name } }

    /// The first problem with the request's shape: a repeated parameter or an oversized value.
    var shapeProblem: String? {
        var seen: Set<String> = []
        for (name, value) in pairs {
            if !seen.insert(name).inserted {
                return "parameter '\(clip(name))' must not be included more than once"
            }
            if value.utf8.count > Self.maximumValueBytes {
                return "parameter '\(clip(name))' is longer than \(Self.maximumValueBytes) bytes"
            }
        }
        return nil
    }

    /// The request's form body; `nil` when the body is not `application/x-www-form-urlencoded`.
    static func form(of request: HTTPServerRequest) -> Parameters? {
        guard let fields = try? request.formFields() else { return nil }
        return Parameters(fields)
    }
}

/// The credentials of an `Authorization: Basic` header, decoded per RFC 6749 §2.3.1 (form-urlencoded
/// client id and secret, then base64).
struct BasicCredentials: Sendable {
    let clientID: String
    let clientSecret: String

    /// `nil` when there is no Authorization header; `.failure` when it is not a well-formed Basic header.
    static func parse(_ request: HTTPServerRequest) -> Result<BasicCredentials, OAuthFailure>? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic" else {
            return .failure(.invalidClient("the Authorization header must use the Basic scheme"))
        }
        guard let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else {
            return .failure(.invalidClient("the Basic credentials are not base64 of client_id:client_secret"))
        }
        let user = FormURLEncoding.decode("u=" + text[..<colon]).first?.1 ?? ""
        let password = FormURLEncoding.decode("p=" + text[text.index(after: colon)...]).first?.1 ?? ""
        return .success(BasicCredentials(clientID: user, clientSecret: password))
    }
}

/// The token of an `Authorization: Bearer` header; `nil` when absent or another scheme.
func bearerToken(of request: HTTPServerRequest) -> String? {
    guard let header = request.headers["Authorization"] else { return nil }
    let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].trimmingCharacters(in: .whitespaces)
    return token.isEmpty ? nil : token
}
