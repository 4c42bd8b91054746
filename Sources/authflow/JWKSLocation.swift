import AuthFlowHTTP
import Foundation

/// Where `authflow token verify --jwks URL` fetches a key set from, and the fetch itself.
enum JWKSLocation {
    /// `https://` anywhere; `http://` only on loopback hosts, as for provider endpoints.
    static func isAllowed(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return false }
        if scheme == "https" { return true }
        guard scheme == "http" else { return false }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// Fetches the document.
    static func fetch(_ url: String) async -> Result<[UInt8], CommandIO.UsageProblem> {
        do {
            var request = HTTPClientRequest(url: url)
            request.headers["Accept"] = "application/json"
            let response = try await CurlHTTPClient().send(request)
            guard response.status == 200 else {
                return .failure(.init(message: "expected status 200 from \(url), found \(response.status)"))
            }
            return .success(response.body)
        } catch {
            return .failure(.init(message: "\(error)"))
        }
    }
}
