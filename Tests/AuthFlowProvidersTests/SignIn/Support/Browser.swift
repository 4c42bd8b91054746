import AuthFlow
import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// What the user does on the sandbox's consent page.
enum ConsentChoice: Sendable {
    /// Picks the N-th ready-made identity and allows.
    case preset(Int)
    /// Types an identity and allows.
    case custom(subject: String, email: String?, name: String?, emailVerified: Bool)
    /// Cancels.
    case cancel
}

/// One request the browser sent to the relying party's callback, kept so a test can replay or alter it.
struct CallbackRequest: Sendable {
    let method: CallbackMethod
    /// The callback URL (GET: with the query; POST: the form action).
    let url: String
    /// The parameters (GET: the query; POST: the form fields).
    let parameters: [(String, String)]

    /// The same callback with `state` replaced.
    func replacing(_ name: String, with value: String) -> CallbackRequest {
        let changed = parameters.map { $0.0 == name ? ($0.0, value) : $0 }
        var base = url
        if method == .get, let question = url.firstIndex(of: "?") { base = String(url[..<question]) }
        return CallbackRequest(
            method: method, url: method == .get ? base + "?" + FormURLEncoding.encode(changed) : url,
            parameters: changed)
    }
}

/// A minimal HTML form: its action and hidden inputs.
struct HTMLForm: Sendable {
    let action: String
    let fields: [(String, String)]

    /// The first `<form>` of `html`, with its hidden inputs (attribute values HTML-unescaped).
    static func first(in html: String) -> HTMLForm? {
        guard let formStart = html.range(of: "<form"), let formEnd = html.range(of: "</form>") else { return nil }
        let form = html[formStart.lowerBound..<formEnd.upperBound]
        guard let tagEnd = form.firstIndex(of: ">"), let action = attribute("action", in: form[..<tagEnd]) else {
            return nil
        }
        var fields: [(String, String)] = []
        var rest = form[...]
        while let input = rest.range(of: "<input") {
            guard let close = rest[input.upperBound...].firstIndex(of: ">") else { break }
            let tag = rest[input.upperBound..<close]
            if attribute("type", in: tag) == "hidden", let name = attribute("name", in: tag) {
                fields.append((name, attribute("value", in: tag) ?? ""))
            }
            rest = rest[close...]
        }
        return HTMLForm(action: action, fields: fields)
    }

    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let value = tag[start.upperBound...].prefix { $0 != "\"" }
        return unescape(value)
    }

    static func unescape(_ text: Substring) -> String {
        var result = String(text)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }
}

/// The browser: follows the authorization redirect, submits the sandbox's consent form, and carries the
/// provider's answer (a 302 to the callback, or Apple's auto-submitting form_post page) to the relying
/// party with the flow cookie. Everything goes over real loopback HTTP through libcurl.
struct Browser: Sendable {
    let client: CurlHTTPClient
    /// The flow cookie's value (the browser binding); `nil` sends no cookie.
    var binding: String?

    func get(_ url: String, headers: HTTPHeaders = [:]) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(method: "GET", url: url, headers: headers)
        request.timeout = 60
        return try await client.send(request)
    }

    func post(_ url: String, form: [(String, String)], headers: HTTPHeaders = [:]) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest.form(url: url, fields: form)
        for (name, value) in headers { request.headers[name] = value }
        request.timeout = 60
        return try await client.send(request)
    }

    /// Opens the provider's authorization URL; returns the consent page.
    func openConsentPage(_ authorizationURL: String) async throws -> HTMLForm {
        let response = try await get(authorizationURL)
        let html = String(decoding: response.body, as: UTF8.self)
        guard response.status == 200, let form = HTMLForm.first(in: html),
            form.fields.contains(where: { $0.0 == "ticket" })
        else {
            throw E2EFailure("expected the sandbox consent page, found HTTP \(response.status): \(html.prefix(400))")
        }
        return form
    }

    /// Submits the consent form; returns the provider's answer.
    func consent(_ page: HTMLForm, _ choice: ConsentChoice) async throws -> HTTPClientResponse {
        var fields = page.fields
        switch choice {
        case .preset(let index):
            fields += [("identity", "preset-\(index)"), ("decision", "allow")]
        case .custom(let subject, let email, let name, let verified):
            fields += [("identity", "custom"), ("subject", subject)]
            if let email { fields.append(("email", email)) }
            if let name { fields.append(("name", name)) }
            if verified { fields.append(("email_verified", "true")) }
            fields.append(("decision", "allow"))
        case .cancel:
            fields.append(("decision", "cancel"))
        }
        return try await post(page.action, form: fields)
    }

    /// Turns the provider's answer into the request the browser makes to the relying party.
    func callback(from answer: HTTPClientResponse) throws -> CallbackRequest {
        if (300..<400).contains(answer.status), let location = answer.headers["Location"] {
            // Facebook appends an empty fragment (`#_=_`); a browser never sends a fragment.
            let url =
                location.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
                ?? location
            let query = url.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            return CallbackRequest(method: .get, url: url, parameters: FormURLEncoding.decode(query))
        }
        let html = String(decoding: answer.body, as: UTF8.self)
        guard answer.status == 200, let form = HTMLForm.first(in: html) else {
            throw E2EFailure(
                "expected a redirect or a form_post page, found HTTP \(answer.status): \(html.prefix(400))")
        }
        return CallbackRequest(method: .post, url: form.action, parameters: form.fields)
    }

    /// Sends `callback` to the relying party with the flow cookie; returns the app's outcome index.
    func deliver(_ callback: CallbackRequest) async throws -> Int {
        var headers: HTTPHeaders = [:]
        if let binding { headers["Cookie"] = "\(TestApp.cookieName)=\(binding)" }
        let response =
            switch callback.method {
            case .get: try await get(callback.url, headers: headers)
            case .post: try await post(callback.url, form: callback.parameters, headers: headers)
            }
        guard response.status == 200, let index = (try JSONValue.parse(response.body))["outcome"]?.int64Value else {
            throw E2EFailure("expected the app's outcome, found HTTP \(response.status)")
        }
        return Int(index)
    }
}
