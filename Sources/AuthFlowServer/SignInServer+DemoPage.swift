import AuthFlow
import AuthFlowHTTP
import AuthFlowMatrix

extension SignInServer {
    /// `GET /` with ``Options/demoPage``: sign-in links when signed out; the verified identity, the flow
    /// trace of the sign-in and a sign-out button when signed in. Element ids follow the Wave 2 contract
    /// (`signin-{name}`, `identity`, `user_id`, `provider`, `subject`, `email`, `name`, `trace`, `signout`).
    func homePage(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let session = try await currentSession(request)
        var body = "<h1>AuthFlow demo</h1>\n"
        if let session {
            body += signedInSection(session)
        } else {
            body += "<p>Sign in with one of the sandbox identity providers:</p>\n"
            for name in providerNames {
                guard let provider = providers[name] else { continue }
                let display = provider.plugin.displayName
                body +=
                    "<a class=\"signin\" id=\"signin-\(HTML.escape(name))\" "
                    + "href=\"/auth/\(HTML.escape(name))/login?return_to=/\">Sign in with \(HTML.escape(display))</a>\n"
            }
        }
        body += "<p><a id=\"matrix\" href=\"/matrix\">Capability matrix of these providers</a></p>\n"
        return ResponseFactory.html(HTML.page(title: "AuthFlow demo", body: body))
    }

    /// `GET /matrix` with ``Options/demoPage``: the capability matrix of the configured providers (HTML).
    func matrixPage() -> HTTPServerResponse {
        let resolved = providerNames.compactMap { providers[$0] }
        let page = CapabilityMatrix(providers: resolved, storesTokens: true, options: options.flow).render(
            format: .html)
        return ResponseFactory.html(page)
    }

    private func signedInSection(_ session: CurrentSession) -> String {
        let identity = session.identity
        let email = identity.emailVerified ? identity.email : nil
        func row(_ id: String, _ label: String, _ value: String?) -> String {
            "<dt>\(label)</dt><dd id=\"\(id)\">\(HTML.escape(value ?? ""))</dd>\n"
        }
        var html = "<p>Signed in. The provider vouched for this identity:</p>\n<dl id=\"identity\">\n"
        html += row("user_id", "User id", session.record.userID.rawValue)
        html += row("provider", "Provider", identity.provider)
        html += row("subject", "Subject", identity.subject)
        html += row("email", "Email (verified)", email)
        html += row("name", "Name", identity.name)
        html += "</dl>\n"
        html += """
            <form method="post" action="/auth/logout?return_to=/"><button id="signout" type="submit">Sign out</button></form>

            """
        html += "<h2>How this sign-in went</h2>\n"
        if let trace = traces.session(digest: Self.digest(session.id)), !trace.isEmpty {
            html += "<ol id=\"trace\">\n"
            for event in trace { html += Self.traceItem(event) }
            html += "</ol>\n"
            let trips = trace.filter(\.providerRoundTrip)
            let time = trips.reduce(0) { $0 + $1.duration }
            html +=
                "<p id=\"round-trips\">\(trips.count) round trip\(trips.count == 1 ? "" : "s") to the provider, "
                + "\(Self.milliseconds(time)) in total.</p>\n"
        } else {
            html +=
                "<ol id=\"trace\"></ol>\n<p>The trace of this sign-in is no longer kept (sign in again to see it).</p>\n"
        }
        let others = providerNames.filter { $0 != identity.provider }
        if !others.isEmpty {
            html += "<h2>Link another provider</h2>\n"
            for name in others {
                let display = providers[name]?.plugin.displayName ?? name
                html +=
                    "<a class=\"link\" id=\"link-\(HTML.escape(name))\" "
                    + "href=\"/auth/\(HTML.escape(name))/link?return_to=/\">Link \(HTML.escape(display))</a><br>\n"
            }
        }
        html += """
            <form method="post" action="/auth/account/delete?return_to=/"><button id="delete-account" type="submit">Delete account</button></form>

            """
        return html
    }

    static func traceItem(_ event: TraceEvent) -> String {
        let outcome: String
        switch event.outcome {
        case .succeeded: outcome = "ok"
        case .failed(let code): outcome = "failed: \(code.rawValue)"
        }
        var item = "<li class=\"step\" data-step=\"\(event.step.rawValue)\">"
        item += "<strong class=\"step-name\">\(event.step.rawValue)</strong> "
        item += "<span class=\"duration\">\(milliseconds(event.duration))</span> "
        item += "<span class=\"outcome\">\(HTML.escape(outcome))</span>"
        if event.providerRoundTrip { item += " <span class=\"round-trip\">round trip to the provider</span>" }
        if !event.checks.isEmpty {
            item +=
                "<div class=\"checks\">checks passed: "
                + event.checks.map { "<code>\(HTML.escape($0))</code>" }.joined(separator: ", ") + "</div>"
        }
        if let detail = event.detail { item += "<div class=\"detail\">\(HTML.escape(detail))</div>" }
        return item + "</li>\n"
    }

    static func milliseconds(_ seconds: Double) -> String {
        let value = (seconds * 10_000).rounded() / 10
        return "\(value) ms"
    }
}
