import AuthFlowHTTP

/// The sandbox's HTML: the consent page, Apple's auto-submitting form_post page, and error pages.
/// Everything that comes from a request is HTML-escaped.
enum SandboxPages {
    static let style = """
        body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}\
        fieldset{margin:1rem 0}label{display:block;margin:.3rem 0}\
        input[type=text],input[type=email]{width:100%;box-sizing:border-box}\
        .banner{background:#fff3cd;border:1px solid #e0c36c;padding:.5rem;border-radius:4px}\
        button{font-size:1rem;margin-right:1rem}code{word-break:break-all}
        """

    static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <meta name="referrer" content="no-referrer">
        <title>\(HTML.escape(title))</title><style>\(style)</style></head>
        <body>
        \(body)
        </body></html>
        """
    }

    /// Security headers every sandbox page carries.
    static func page(_ html: String, status: Int = 200) -> HTTPServerResponse {
        var response = HTTPServerResponse.html(html, status: status)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response
    }

    /// The consent page: who asks for what, a choice of test identities (or a typed one), Allow and Cancel.
    /// The only state it carries is the opaque, single-use `ticket`.
    static func consent(
        request: AuthorizationRequest, ticket: String, action: String, presets: [SandboxIdentity],
        extraFields: String = ""
    ) -> HTTPServerResponse {
        let provider = request.provider
        var presetRows = ""
        for (index, identity) in presets.enumerated() {
            let checked = index == 0 ? " checked" : ""
            var detail = identity.email ?? "no email"
            if provider == .apple, identity.isPrivateEmail { detail += ", private relay" }
            if provider == .google, !identity.emailVerified { detail += ", unverified" }
            if let username = identity.username, provider == .x {
                detail = "@" + username + ", " + detail
            }
            if let tenant = identity.tenantID, provider == .microsoft { detail += ", tenant " + tenant }
            presetRows += """
                <label><input type="radio" name="identity" value="preset-\(index)"\(checked)> \
                <strong>\(HTML.escape(identity.name ?? identity.subject))</strong> (\(HTML.escape(detail))) \
                <code>\(HTML.escape(identity.subject))</code></label>

                """
        }
        let privateEmailRow =
            provider == .apple
            ? "<label><input type=\"checkbox\" name=\"private_email\" value=\"true\"> private relay email</label>\n"
            : ""
        let scopes = request.scopes.isEmpty ? "(none)" : request.scopes.map(HTML.escape).joined(separator: ", ")
        let body = """
            <p class="banner">Sandbox identity provider: a local emulation of \(HTML.escape(provider.displayName)) for \
            development and tests. No real account is used.</p>
            <h1>Sign in with \(HTML.escape(provider.displayName))</h1>
            <p>The application <code>\(HTML.escape(request.clientID))</code> asks for: <strong>\(scopes)</strong>.</p>
            <p>You will be returned to <code>\(HTML.escape(request.redirectURI))</code>.</p>
            <form method="post" action="\(HTML.escape(action))">
            <input type="hidden" name="ticket" value="\(HTML.escape(ticket))">
            <fieldset><legend>Sign in as</legend>
            \(presetRows)<label><input type="radio" name="identity" value="custom"> Someone else:</label>
            <label>Subject (user id) <input type="text" name="subject" maxlength="255" autocomplete="off"></label>
            <label>Email <input type="email" name="email" maxlength="254" autocomplete="off"></label>
            <label>Name <input type="text" name="name" maxlength="200" autocomplete="off"></label>
            \(extraFields)<label><input type="checkbox" name="email_verified" value="true" checked> email verified</label>
            \(privateEmailRow)</fieldset>
            <button type="submit" name="decision" value="allow" id="allow">Allow</button>
            <button type="submit" name="decision" value="cancel" id="cancel">Cancel</button>
            </form>
            """
        var response = page(document(title: "Sign in with \(provider.displayName) (sandbox)", body: body))
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] =
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
        return response
    }

    /// Apple's `response_mode=form_post` answer: a page that POSTs the fields to the redirect URI at once,
    /// with a submit button for browsers without JavaScript.
    static func formPost(action: String, fields: [(String, String)]) -> HTTPServerResponse {
        let inputs = fields.map { name, value in
            "<input type=\"hidden\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(value))\">"
        }.joined(separator: "\n")
        let body = """
            <form method="post" action="\(HTML.escape(action))">
            \(inputs)
            <noscript><p>JavaScript is off: continue to the application.</p><button type="submit">Continue</button></noscript>
            </form>
            <script>document.forms[0].submit();</script>
            """
        return page(document(title: "Redirecting…", body: body))
    }

    /// A refusal shown to the user instead of redirecting to a URI that could not be trusted.
    static func error(provider: SandboxProvider, refusal: AuthorizationRefusal) -> HTTPServerResponse {
        let body = """
            <p class="banner">Sandbox identity provider (\(HTML.escape(provider.displayName)))</p>
            <h1>The sign-in request was refused</h1>
            <p><code id="error">\(HTML.escape(refusal.error))</code>: <span id="error_description">\(HTML.escape(refusal.description))</span></p>
            """
        var response = page(document(title: "Error: \(refusal.error)", body: body), status: refusal.status)
        response.headers["X-Frame-Options"] = "DENY"
        return response
    }
}
