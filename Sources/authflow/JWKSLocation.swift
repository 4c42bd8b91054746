import AuthFlow
import AuthFlowHTTP
import Foundation
import Synchronization

/// Where `authflow token verify --jwks URL` fetches a key set from, and the fetch itself.
enum JWKSLocation {
    /// `https://` anywhere; `http://` only on a loopback host (``AuthFlow/LoopbackHost``: the parsed host is
    /// exactly `localhost`, an IPv4 literal in 127.0.0.0/8 or `[::1]`), as for provider endpoints. A URL with
    /// `user:password@` is refused either way (parsers disagree on where its host starts).
    static func isAllowed(_ url: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return false }
        if scheme == "https" { return true }
        return scheme == "http" && LoopbackHost.contains(host)
    }

    /// Fetches the document synchronously (the CLI has no other work to do meanwhile).
    static func fetch(_ url: String) -> Result<[UInt8], CommandIO.UsageProblem> {
        let outcome = Mutex<Result<[UInt8], CommandIO.UsageProblem>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<[UInt8], CommandIO.UsageProblem>
            do {
                let client = CurlHTTPClient()
                var request = HTTPClientRequest(url: url)
                request.headers["Accept"] = "application/json"
                let response = try await client.send(request)
                if response.status == 200 {
                    result = .success(response.body)
                } else {
                    result = .failure(.init(message: "expected status 200 from \(url), found \(response.status)"))
                }
            } catch {
                result = .failure(.init(message: "\(error)"))
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0 } ?? .failure(.init(message: "the fetch did not complete"))
    }
}
