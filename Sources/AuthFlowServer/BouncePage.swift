import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// The same-site re-POST page that carries a cross-site form_post callback (Apple) over to the app's own
/// origin, so the `SameSite=Lax` flow cookie is sent.
///
/// A browser does not send Lax cookies with a cross-site POST, so Apple's callback arrives without the
/// flow cookie. Instead of weakening the cookie to `SameSite=None`, the server answers that first arrival
/// with this page: an auto-submitting form that POSTs the same fields to the same callback path, plus the
/// marker field ``markerField``. That second POST is same-origin, so the browser attaches the flow cookie
/// and the binding check runs as for any provider. A second arrival still without the cookie is refused
/// (`browser_binding_mismatch`); the page itself consumes nothing, so the state stays single-use.
///
/// The page loads nothing external, allows only its own inline script (by hash), is never cached, sends
/// no referrer and cannot be framed.
enum BouncePage {
    /// The form field that marks a re-POSTed callback.
    static let markerField = "authflow_bounce"

    /// The most fields and bytes re-POSTed; a callback larger than that is refused.
    static let maximumFields = 32
    static let maximumBytes = 64 * 1024

    static let script = "document.getElementById(\"bounce\").submit();"

    /// The CSP `script-src` source for ``script``.
    static let scriptHash: String = {
        "'sha256-" + Data(Digest.sha256(Array(script.utf8))).base64EncodedString() + "'"
    }()

    /// The page re-POSTing `fields` to `action`.
    static func page(action: String, fields: [(String, String)]) -> String {
        var inputs = ""
        for (name, value) in fields where name != markerField {
            inputs += "<input type=\"hidden\" name=\"\(HTML.escape(name))\" value=\"\(HTML.escape(value))\">\n"
        }
        inputs += "<input type=\"hidden\" name=\"\(markerField)\" value=\"1\">\n"
        let body = """
            <p>Finishing sign-in…</p>
            <form id="bounce" method="post" action="\(HTML.escape(action))">
            \(inputs)<noscript><button type="submit">Continue</button></noscript>
            </form>
            <script>\(script)</script>
            """
        return HTML.serverPage(title: "Signing in…", body: body)
    }

    /// The page's Content-Security-Policy; `formTargets` are extra origins the post-sign-in redirect may
    /// reach (form-action covers redirects after a form submission).
    static func contentSecurityPolicy(formTargets: [String]) -> String {
        let targets = (["'self'"] + formTargets).joined(separator: " ")
        return "default-src 'none'; script-src \(scriptHash); style-src 'unsafe-inline'; form-action \(targets); "
            + "base-uri 'none'; frame-ancestors 'none'"
    }
}
