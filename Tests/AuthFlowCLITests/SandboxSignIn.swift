import AuthFlowCurl
import AuthFlowHTTP
import Foundation
import Synchronization

/// Signs in through a running `authflow serve --sandbox` as a browser would: a cookie jar per origin, no
/// automatic redirects, the sandbox's consent form approved for its first preset identity.
final class SandboxSignIn: Sendable {
    private let client = CurlHTTPClient()
    private let jar = Mutex<[String: [String: String]]>([:])

    /// Runs the Google sign-in of the app at `app` (e.g. `http://localhost:8080`); returns the callback's answer.
    func google(app: String) async throws -> HTTPClientResponse {
        let start = try await get("\(app)/auth/google/login?return_to=/")
        let authorize = try Self.required(start.headers["Location"], "a Location from the login route")
        let consent = String(decoding: try await get(authorize).body, as: UTF8.self)
        let ticket = try Self.required(Self.inputValue("ticket", in: consent), "a ticket on the consent page")
        let action = try Self.required(Self.attribute("action", in: consent), "a form on the consent page")
        let origin = Self.origin(of: authorize)
        var approve = HTTPClientRequest.form(
            url: action.hasPrefix("http") ? action : origin + action,
            fields: [("ticket", ticket), ("identity", "preset-0"), ("decision", "allow")])
        approve.headers["Origin"] = origin
        let approved = try await send(approve)
        return try await get(try Self.required(approved.headers["Location"], "a redirect back to the app"))
    }

    /// `GET url` with the cookies stored for its origin.
    func get(_ url: String) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(method: "GET", url: url)
        request.headers["Accept"] = "application/json"
        return try await send(request)
    }

    private func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var request = request
        let origin = Self.origin(of: request.url)
        let cookies = jar.withLock { $0[origin] ?? [:] }
        if !cookies.isEmpty {
            request.headers["Cookie"] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: "; ")
        }
        request.timeout = 60
        let response = try await client.send(request)
        for header in response.headers.values("Set-Cookie") {
            let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            let expired = parts.contains { $0.lowercased().hasPrefix("max-age=") && Int($0.dropFirst(8)) ?? 1 <= 0 }
            jar.withLock { $0[origin, default: [:]][name] = expired ? nil : String(pair[pair.index(after: equals)...]) }
        }
        return response
    }

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    private static func required(_ value: String?, _ what: String) throws -> String {
        guard let value else { throw Missing(description: "expected \(what), found none") }
        return value
    }

    static func origin(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" }
        return String(url[..<schemeEnd.upperBound]) + authority
    }

    /// The value of the first `name="…"` attribute in `html`, with the entities the sandbox escapes undone.
    static func attribute(_ name: String, in html: some StringProtocol) -> String? {
        guard let start = html.range(of: " \(name)=\"") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The value of the `<input name="name" value="…">` in `html`.
    static func inputValue(_ name: String, in html: String) -> String? {
        guard let input = html.range(of: "name=\"\(name)\"") else { return nil }
        let tagStart =
            html[..<input.lowerBound].range(of: "<input", options: .backwards)?.lowerBound ?? input.lowerBound
        let tag = html[tagStart...].prefix { $0 != ">" }
        return attribute("value", in: tag)
    }
}
