import AuthFlow
import AuthFlowHTTP
import AuthFlowMatrix
import AuthFlowSandbox
import AuthFlowServer
import Foundation

extension DemoSite {
    /// `GET /`: sign-in links when signed out; the verified identity, the flow trace of the sign-in and a
    /// sign-out button when signed in.
    func homePage(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let user = try await server.signedInUser(request)
        var body = "<h1>AuthFlow demo</h1>\n"
        if let user {
            body += signedInSection(user)
        } else {
            body += Self.introduction(sandboxURL: sandbox?.baseURL)
            body += "<p>Sign in with one of the sandbox identity providers:</p>\n"
            for name in server.providerNames {
                // A passkey provider has no sign-in link: its buttons are below.
                guard let provider = server.providers[name], provider.usesOAuth else { continue }
                let display = provider.plugin.displayName
                body +=
                    "<a class=\"signin\" id=\"signin-\(HTML.escape(name))\" "
                    + "href=\"\(HTML.escape(server.options.pathPrefix))/\(HTML.escape(name))/login?return_to=/\">Sign in with \(HTML.escape(display))</a>\n"
            }
        }
        let passkeys = passkeySection(signedIn: user != nil)
        body += passkeys
        body += "<p><a id=\"matrix\" href=\"/matrix\">Capability matrix of these providers</a></p>\n"
        var response = Self.html(HTML.page(title: "AuthFlow demo", style: Self.style, body: body))
        if !passkeys.isEmpty {
            // The passkey script, and its calls to the passkey routes.
            let policy = response.headers["Content-Security-Policy"] ?? HTML.contentSecurityPolicy
            response.headers["Content-Security-Policy"] = policy.replacingOccurrences(
                of: "default-src 'none';", with: "default-src 'none'; script-src 'self'; connect-src 'self';")
        }
        if let sandbox, user != nil {
            // The event buttons post to the sandbox's loopback senders.
            let policy = response.headers["Content-Security-Policy"] ?? HTML.contentSecurityPolicy
            response.headers["Content-Security-Policy"] = policy.replacingOccurrences(
                of: "form-action 'self'", with: "form-action 'self' \(sandbox.baseURL)")
        }
        return response
    }

    /// `GET /matrix`: the capability matrix of the configured providers (HTML).
    func matrixPage() -> HTTPServerResponse {
        let resolved = server.providerNames.compactMap { server.providers[$0] }
        let page = CapabilityMatrix(
            providers: resolved, storesTokens: true, options: server.options.flow, access: server.options.access
        ).render(format: .html)
        return Self.html(page)
    }

    private func signedInSection(_ user: SignedInUser) -> String {
        let identity = user.identity
        let email = identity.emailVerified ? identity.email : nil
        func row(_ id: String, _ label: String, _ value: String?) -> String {
            "<dt>\(label)</dt><dd id=\"\(id)\">\(HTML.escape(value ?? ""))</dd>\n"
        }
        var html = "<p>Signed in. The provider vouched for this identity:</p>\n<dl id=\"identity\">\n"
        html += row("user_id", "User id", user.userID.rawValue)
        html += row("provider", "Provider", identity.provider)
        html += row("subject", "Subject", identity.subject)
        html += row("email", "Email (verified)", email)
        html += row("name", "Name", identity.name)
        html += "</dl>\n"
        html += "<h2>How this sign-in went</h2>\n"
        if let trace = user.trace, !trace.isEmpty {
            html += "<ol id=\"trace\">\n"
            for event in trace { html += Self.traceItem(event) }
            html += "</ol>\n"
            let trips = trace.filter(\.providerRoundTrip)
            let time = trips.reduce(0) { $0 + $1.duration }
            html +=
                "<p id=\"round-trips\">\(trips.count) round trip\(trips.count == 1 ? "" : "s") to the provider, "
                + "\(Self.milliseconds(time)) in total.</p>\n"
            html += Self.legend(for: Set(trace.flatMap(\.checks)))
        } else {
            html +=
                "<ol id=\"trace\"></ol>\n<p>The trace of this sign-in is no longer kept (sign in again to see it).</p>\n"
        }
        let others = server.providerNames.filter { $0 != identity.provider }
        if !others.isEmpty {
            html += "<h2>Link another provider</h2>\n"
            html +=
                "<p>Sign in with another provider to add that identity to this same account; afterwards either "
                + "one signs you in.</p>\n"
            for name in others {
                let display = server.providers[name]?.plugin.displayName ?? name
                html +=
                    "<a class=\"link\" id=\"link-\(HTML.escape(name))\" "
                    + "href=\"\(HTML.escape(server.options.pathPrefix))/\(HTML.escape(name))/link?return_to=/\">Link \(HTML.escape(display))</a><br>\n"
            }
        }
        html += """
            <h2>Your account</h2>
            <div id="account">
            <form method="post" action="\(HTML.escape(server.options.pathPrefix))/logout?return_to=/"><button id="signout" type="submit">Sign out</button> \
            ends this session (the cookie stops working everywhere).</form>
            <form method="post" action="\(HTML.escape(server.options.pathPrefix))/account/delete?return_to=/"><button id="delete-account" type="submit">\
            Delete account</button> revokes the provider tokens, ends every session and deletes the user.</form>
            </div>

            """
        html += eventsSection(user)
        return html
    }

    /// Buttons that make the sandbox send the signed-in identity's provider events to this app.
    private func eventsSection(_ user: SignedInUser) -> String {
        let identity = user.identity
        guard let sandbox, let provider = server.providers[identity.provider],
            let kind = SandboxProvider(rawValue: provider.type)
        else { return "" }
        let senders = SandboxEventSender.all(for: kind)
        guard !senders.isEmpty else { return "" }
        var base = Substring(server.options.publicURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        var html =
            "<h2>Provider events</h2>\n<p>Make the sandbox send this identity's provider events to this app:</p>\n"
        html += "<div id=\"events\">\n"
        for sender in senders {
            var fields = sender.fields
            fields[sender.subjectField] = identity.subject
            fields["client_id"] = provider.clientID
            fields["to"] = "\(base)\(server.options.pathPrefix)/\(identity.provider)/\(sender.receiver)"
            html += "<form method=\"post\" action=\"\(HTML.escape(sandbox.baseURL + sender.path))\">"
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                html += "<input type=\"hidden\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(value))\">"
            }
            html += "<button class=\"event\" type=\"submit\">\(HTML.escape(sender.label))</button></form>\n"
        }
        return html + "</div>\n"
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
                + event.checks.map { check in
                    let title = explanation(of: check).map { " title=\"\(HTML.escape($0))\"" } ?? ""
                    return "<code\(title)>\(HTML.escape(check))</code>"
                }.joined(separator: ", ") + "</div>"
        }
        if let detail = event.detail { item += "<div class=\"detail\">\(HTML.escape(detail))</div>" }
        return item + "</li>\n"
    }

    /// What the sandbox is and what a click on a sign-in button will do.
    static func introduction(sandboxURL: String?) -> String {
        let at = sandboxURL.map { " at <code>\(HTML.escape($0))</code>" } ?? ""
        return """
            <div id="intro">
            <p>This page is an app that signs people in with AuthFlow. Its providers are not the real Apple, \
            Google, Facebook and X but the <strong>sandbox</strong>: an identity provider running on this \
            machine\(at) that speaks each one's protocol (the same redirects, tokens, keys and quirks), so \
            nothing leaves the machine and no account is needed.</p>
            <p>What happens when you click a button: the app sends your browser to the sandbox's consent page; \
            you pick an identity (or type one) and allow; the sandbox sends you back here with a code, and the \
            app exchanges it for tokens and checks them exactly as it would with the real provider. This page \
            then shows who you are, each step of the sign-in and every check that passed.</p>
            </div>

            """
    }

    static func milliseconds(_ seconds: Double) -> String {
        let value = (seconds * 10_000).rounded() / 10
        return "\(value) ms"
    }

    /// A page with the strict script-less CSP and `Cache-Control: no-store`.
    static func html(_ page: String) -> HTTPServerResponse {
        var response = HTTPServerResponse.html(page, status: 200)
        response.headers["Content-Security-Policy"] = HTML.contentSecurityPolicy
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    static let style = """
        body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}\
        h1{font-size:1.4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}\
        dt{font-weight:600}dd{margin:0;font-family:ui-monospace,monospace;word-break:break-all}\
        a.signin{display:block;margin:.5rem 0;padding:.6rem 1rem;border:1px solid #888;border-radius:.4rem;\
        text-decoration:none;color:#222;max-width:18rem}ol#trace li{margin:.4rem 0}\
        .checks,.detail{color:#555;font-size:.9rem}.error{color:#a00}code{font-family:ui-monospace,monospace}\
        .checks code[title]{text-decoration:underline dotted;cursor:help}\
        #intro{background:#f4f6fa;border-radius:.4rem;padding:.2rem 1rem}\
        #checks-legend dl{grid-template-columns:max-content 1fr;font-size:.9rem}#checks-legend dd{font-family:inherit;word-break:normal}\
        #account form{margin:.5rem 0}
        """
}
