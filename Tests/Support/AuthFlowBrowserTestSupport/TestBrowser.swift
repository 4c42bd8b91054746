import AuthFlowCurl
package import AuthFlowHTTP
import Foundation
import Synchronization

/// A minimal browser over `CurlHTTPClient`: a cookie jar per origin (Path, Max-Age and SameSite honoured),
/// no automatic redirects, and the `Origin` / `Sec-Fetch-Site` headers a browser would send.
package final class TestBrowser: Sendable {
    package struct Cookie: Sendable {
        package var name: String
        package var value: String
        package var path: String
        package var sameSiteLax: Bool
        package var httpOnly: Bool
    }

    private let client = CurlHTTPClient()
    private let jar = Mutex<[String: [Cookie]]>([:])

    /// A browser with an empty cookie jar.
    package init() {}

    /// `GET url` with this browser's cookies for its origin.
    package func get(_ url: String, headers: [(String, String)] = []) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(method: "GET", url: url)
        request.headers["Accept"] = "application/json"
        for (name, value) in headers { request.headers[name] = value }
        return try await send(request, crossSite: false)
    }

    /// `POST url` with a form body. `from` is the origin of the page that posts (a cross-site POST gets no
    /// SameSite=Lax cookies and `Sec-Fetch-Site: cross-site`); `nil` sends no Origin (a non-browser client).
    /// `rawBody`, when given, replaces the encoded `form` byte for byte (to send what no encoder would).
    package func post(
        _ url: String, form: [(String, String)] = [], rawBody: [UInt8]? = nil, from origin: String?,
        headers: [(String, String)] = []
    ) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest.form(url: url, fields: form)
        if let rawBody { request.body = rawBody }
        request.headers["Accept"] = "application/json"
        let target = Self.origin(of: url)
        var crossSite = false
        if let origin {
            request.headers["Origin"] = origin
            crossSite = Self.site(of: origin) != Self.site(of: target)
            request.headers["Sec-Fetch-Site"] =
                origin == target ? "same-origin" : crossSite ? "cross-site" : "same-site"
        }
        for (name, value) in headers { request.headers[name] = value }
        return try await send(request, crossSite: crossSite)
    }

    /// The value of cookie `name` stored for the origin of `url`.
    package func cookie(_ name: String, for url: String) -> String? {
        jar.withLock { $0[Self.origin(of: url)]?.first { $0.name == name }?.value }
    }

    /// Sets or replaces a cookie for the origin of `url` (to forge one).
    package func setCookie(_ name: String, _ value: String, for url: String, path: String = "/") {
        jar.withLock { jar in
            var cookies = jar[Self.origin(of: url)] ?? []
            cookies.removeAll { $0.name == name }
            cookies.append(Cookie(name: name, value: value, path: path, sameSiteLax: true, httpOnly: true))
            jar[Self.origin(of: url)] = cookies
        }
    }

    /// Every cookie stored for the origin of `url`.
    package func cookies(for url: String) -> [Cookie] {
        jar.withLock { $0[Self.origin(of: url)] ?? [] }
    }

    private func send(_ request: HTTPClientRequest, crossSite: Bool) async throws -> HTTPClientResponse {
        var request = request
        let origin = Self.origin(of: request.url)
        let path = Self.path(of: request.url)
        let cookies = jar.withLock { $0[origin] ?? [] }.filter { cookie in
            path.hasPrefix(cookie.path) && !(crossSite && cookie.sameSiteLax && request.method == "POST")
        }
        if !cookies.isEmpty {
            request.headers["Cookie"] = cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
        }
        request.timeout = 60
        let response = try await client.send(request)
        for header in response.headers.values("Set-Cookie") { store(header, origin: origin) }
        return response
    }

    private func store(_ header: String, origin: String) {
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        var cookie = Cookie(
            name: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...]), path: "/",
            sameSiteLax: false, httpOnly: false)
        var expired = false
        for attribute in parts.dropFirst() {
            let lower = attribute.lowercased()
            if lower.hasPrefix("path=") { cookie.path = String(attribute.dropFirst(5)) }
            if lower == "samesite=lax" || lower == "samesite=strict" { cookie.sameSiteLax = true }
            if lower == "httponly" { cookie.httpOnly = true }
            if lower.hasPrefix("max-age="), let age = Int(lower.dropFirst(8)), age <= 0 { expired = true }
        }
        jar.withLock { jar in
            var cookies = jar[origin] ?? []
            cookies.removeAll { $0.name == cookie.name && $0.path == cookie.path }
            if !expired { cookies.append(cookie) }
            jar[origin] = cookies
        }
    }

    package static func origin(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        return String(url[..<schemeEnd.upperBound]) + authority
    }

    /// The host (a "site" for these loopback tests: localhost and 127.0.0.1 are different sites).
    package static func site(of origin: String) -> String {
        let authority = origin.components(separatedBy: "://").last ?? origin
        return String(authority.prefix { $0 != ":" })
    }

    package static func path(of url: String) -> String {
        let origin = origin(of: url)
        let rest = url.dropFirst(origin.count)
        let path = rest.prefix { $0 != "?" }
        return path.isEmpty ? "/" : String(path)
    }
}

extension HTTPClientResponse {
    /// The body as UTF-8 text.
    package var text: String { String(decoding: body, as: UTF8.self) }
    /// The `Location` header.
    package var location: String? { headers["Location"] }
}
