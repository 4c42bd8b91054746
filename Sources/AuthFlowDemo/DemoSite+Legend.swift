import AuthFlow
import AuthFlowHTTP

extension DemoSite {
    /// One sentence per check a sign-in's trace can name (``TraceEvent/checks``): the result page's legend
    /// and each check's `title`.
    static let checkExplanations: [(name: String, sentence: String)] = [
        ("state", "A random state sent to the provider and required back, unique to this sign-in."),
        ("nonce", "A random nonce the provider must put in the ID token, so an old token cannot be replayed."),
        ("pkce_s256", "PKCE: the code is only redeemable with a secret verifier that never left this server."),
        ("form_post", "The provider answers with a form POST, so the code never appears in a URL."),
        ("request_object", "The request's parameters were signed by this app (RFC 9101), so none can be altered."),
        ("par", "The request was pushed to the provider first (RFC 9126); the browser carried only a reference."),
        ("browser_binding", "The callback came from the browser that began the sign-in (its sealed flow cookie)."),
        ("state_fresh", "The sign-in was begun within the last 10 minutes."),
        ("state_provider", "The state was issued for this provider, not another."),
        ("callback_method", "The provider called back the way it should (GET, or POST for form_post)."),
        ("state_unused", "This state had not been used before: a replayed callback is refused."),
        ("iss_parameter", "The issuer the provider named in its answer (RFC 9207) is the expected one."),
        ("no_provider_error", "The provider did not answer with an error (such as access_denied)."),
        ("code", "The answer carried exactly one authorization code."),
        ("status", "The provider's endpoint answered 200 with a well-formed body."),
        ("access_token", "The token response holds an access token."),
        ("id_token", "The token response holds an ID token (OpenID Connect)."),
        ("signature", "The ID token's signature verifies with the provider's published key."),
        ("iss", "The ID token was issued by this provider."),
        ("aud", "The ID token was issued for this app's client id."),
        ("azp", "The ID token's authorized party is this app (for tokens with several audiences)."),
        ("exp", "The ID token has not expired."),
        ("nbf", "The ID token is already valid (not before now)."),
        ("iat", "The ID token was issued recently, not in the future."),
        ("subject", "The provider named the user with a stable, non-empty subject id."),
        ("subject_matches_id_token", "The user info belongs to the same subject as the ID token."),
        ("email_verified", "The provider says it verified the email address."),
    ]

    /// The sentence for `check`, if the demo explains it.
    static func explanation(of check: String) -> String? {
        checkExplanations.first { $0.name == check }?.sentence
    }

    /// A `<dl>` explaining each of `checks` (in the order of ``checkExplanations``).
    static func legend(for checks: Set<String>) -> String {
        let rows = checkExplanations.filter { checks.contains($0.name) }
        guard !rows.isEmpty else { return "" }
        var html = "<details id=\"checks-legend\" open><summary>What each check means</summary><dl>\n"
        for row in rows {
            html += "<dt><code>\(HTML.escape(row.name))</code></dt><dd>\(HTML.escape(row.sentence))</dd>\n"
        }
        return html + "</dl></details>\n"
    }
}
