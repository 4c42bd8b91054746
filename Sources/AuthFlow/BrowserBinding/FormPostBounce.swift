public import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// The same-site re-POST page that carries a cross-site form_post callback (Apple's) over to the app's own
/// origin, so the `SameSite=Lax` flow cookie (``FlowCookies``) is sent.
///
/// A browser does not send Lax cookies with a cross-site POST, so Apple's callback arrives without the flow
/// cookie. Instead of weakening the cookie to `SameSite=None`, answer that first arrival with ``response(action:fields:formTargets:style:)``:
/// an auto-submitting form that POSTs the same fields to the same callback path, plus the marker field
/// `authflow_bounce`. That second POST is same-origin, so the browser attaches the flow cookie and the binding
/// check runs as for any provider. A second arrival still without the cookie is refused
/// (`browser_binding_mismatch`); the page consumes nothing, so the state stays single-use.
///
/// ``shouldBounce(request:fields:hasFlowRecord:)`` says when; ``callbackFields(_:)`` reads a callback within the
/// limits the page re-POSTs. The page loads nothing external, allows only its own inline
/// script (by hash), is never cached, sends no referrer and cannot be framed.
public enum FormPostBounce {
    /// The form field that marks a re-POSTed callback.
    package static let markerField = "authflow_bounce"
    /// The most fields re-POSTed; a callback with more is refused.
    package static let maximumFields = 32
    /// The most body bytes re-POSTed; a larger callback body is refused.
    package static let maximumBytes = 64 * 1024

    /// The page's only script: it submits the form.
    package static let script = "document.getElementById(\"bounce\").submit();"

    /// The CSP `script-src` source for ``script``.
    package static let scriptHash: String = {
        "'sha256-" + Data(Digest.sha256(Array(script.utf8))).base64EncodedString() + "'"
    }()

    /// The fields of a callback: the form body of a POST, the query of a GET.
    ///
    /// - Throws: ``BrowserBindingError`` `invalid_request` (400) for a body over 64 KiB, a body that
    ///   is not a form, or more than 32 fields.
    public static func callbackFields(_ request: HTTPServerRequest) throws(BrowserBindingError) -> [(String, String)] {
        var fields: [(String, String)]
        if request.method == "POST" {
            guard request.body.count <= maximumBytes else {
                throw BrowserBindingError(
                    .invalidRequest, "expected a callback body of at most \(maximumBytes) bytes, found more",
                    statusHint: 400)
            }
            do throws(HTTPServerError) {
                fields = try request.formFields()
            } catch {
                throw BrowserBindingError(.invalidRequest, error.message, statusHint: 400)
            }
        } else {
            fields = request.query
        }
        guard fields.count <= maximumFields else {
            throw BrowserBindingError(
                .invalidRequest, "expected at most \(maximumFields) callback parameters, found \(fields.count)",
                statusHint: 400)
        }
        return fields
    }

    /// Whether a callback is answered with the re-POST page rather than completed: a POST not yet bounced
    /// (no `authflow_bounce` marker) that arrived cross-site (`Sec-Fetch-Site: cross-site`) or without a flow cookie that
    /// opened for its state.
    public static func shouldBounce(request: HTTPServerRequest, fields: [(String, String)], hasFlowRecord: Bool)
        -> Bool
    {
        guard request.method == "POST", !fields.contains(where: { $0.0 == markerField }) else { return false }
        let crossSite =
            request.headers["Sec-Fetch-Site"]?.trimmingCharacters(in: CharacterSet(charactersIn: " \t")).lowercased()
            == "cross-site"
        return !hasFlowRecord || crossSite
    }

    /// `fields` without the marker, as the sign-in reads them after a bounce.
    public static func withoutMarker(_ fields: [(String, String)]) -> [(String, String)] {
        fields.filter { $0.0 != markerField }
    }

    /// The page re-POSTing `fields` to `action` (the callback's own path); `style` is the page's CSS.
    package static func page(action: String, fields: [(String, String)], style: String = "") -> String {
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
        return HTML.page(title: "Signing in…", style: style, body: body)
    }

    /// The page's Content-Security-Policy; `formTargets` are extra origins the post-sign-in redirect may reach
    /// (form-action covers redirects after a form submission).
    package static func contentSecurityPolicy(formTargets: [String]) -> String {
        let targets = (["'self'"] + formTargets).joined(separator: " ")
        return "default-src 'none'; script-src \(scriptHash); style-src 'unsafe-inline'; form-action \(targets); "
            + "base-uri 'none'; frame-ancestors 'none'"
    }

    /// The whole answer: the page with its CSP, `Cache-Control: no-store`, `Referrer-Policy: no-referrer` (the
    /// re-POST carries the code and state) and `X-Frame-Options: DENY`.
    public static func response(
        action: String, fields: [(String, String)], formTargets: [String] = [], style: String = ""
    ) -> HTTPServerResponse {
        var response = HTTPServerResponse.html(page(action: action, fields: fields, style: style), status: 200)
        response.headers["Content-Security-Policy"] = contentSecurityPolicy(formTargets: formTargets)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        return response
    }
}
