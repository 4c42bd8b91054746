import AuthFlow
import AuthFlowCurl
import AuthFlowHTTP
import Foundation

/// Where `authflow token verify --jwks URL` fetches a key set from, and the fetch itself.
enum JWKSLocation {
    /// `https://` anywhere; `http://` only on a loopback host (`LoopbackHost`: the parsed host is
    /// exactly `localhost`, an IPv4 literal in 127.0.0.0/8 or `[::1]`), as for provider endpoints. A URL with
    /// `user:password@` is refused either way (parsers disagree on where its host starts).
    static func isAllowed(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return false }
        if scheme == "https" { return true }
        return scheme == "http" && LoopbackHost.contains(host)
    }

    /// Why a key set could not be fetched.
    struct FetchProblem: Error {
        let message: String
    }

    /// Fetches the document.
    static func fetch(_ url: String) async -> Result<[UInt8], FetchProblem> {
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
