import AuthFlow

extension RouteTable {
    /// The route template of a path: the provider segment becomes `{provider}`, unknown paths `other`. Used as
    /// the `route` label and log field, so user input never becomes a label value. A provider's event routes
    /// are the ones its plugin declares (`eventEndpoints` gives them by provider name, asked only for paths that
    /// are none of the server's own routes), each `*` segment shown as `{code}`.
    static func template(
        _ segments: [String], eventEndpoints: (String) -> [ProviderEventEndpoint] = { _ in [] }
    ) -> String {
        // Matched on the segment count and strings, templates as literals: array patterns would build an array
        // per case tried, and joining would build the string per request.
        let count = segments.count
        guard count > 0 else { return "other" }
        // The app's own pages (the demo's `/` and `/matrix`, say) pass their labels in (`respond(to:route:with:)`).
        if count == 1 { return segments[0] == "healthz" ? "/healthz" : "other" }
        guard segments[0] == "auth" else { return "other" }
        switch count {
        case 2:
            switch segments[1] {
            case "session": return "/auth/session"
            case "check": return "/auth/check"
            case "forward": return "/auth/forward"
            case "logout": return "/auth/logout"
            case "logged-out": return "/auth/logged-out"
            case "sessions": return "/auth/sessions"
            default: return "other"
            }
        case 3:
            if segments[1] == "account" && segments[2] == "delete" { return "/auth/account/delete" }
            if segments[1] == "session" && segments[2] == "refresh" { return "/auth/session/refresh" }
            if segments[1] == "sessions" && segments[2] == "revoke" { return "/auth/sessions/revoke" }
            if RouteTable.match(segments) == .forward { return "/auth/forward" }
            return actionTemplate(segments[2]) ?? eventTemplate(segments, eventEndpoints(segments[1]))
        case 4 where segments[2] == "native" && segments[3] == "nonce":
            return "/auth/{provider}/native/nonce"
        case 4 where passkeyTemplate(segments[2], segments[3]) != nil:
            return passkeyTemplate(segments[2], segments[3]) ?? "other"
        default:
            return eventTemplate(segments, eventEndpoints(segments[1]))
        }
    }

    /// `/auth/{provider}/ACTION/DETAIL` for the passkey routes of two segments after the provider; `nil` otherwise.
    static func passkeyTemplate(_ action: String, _ detail: String) -> String? {
        switch (action, detail) {
        case ("register", "options"): "/auth/{provider}/register/options"
        case ("authenticate", "options"): "/auth/{provider}/authenticate/options"
        case ("credentials", "rename"): "/auth/{provider}/credentials/rename"
        case ("credentials", "delete"): "/auth/{provider}/credentials/delete"
        default: nil
        }
    }

    /// `/auth/{provider}/ACTION` for each `/auth/{provider}/…` route of the server's own, as literals; `nil` for
    /// anything else (provider events are the plugins', see ``eventTemplate(_:_:)``).
    static func actionTemplate(_ action: String) -> String? {
        switch action {
        case "login": "/auth/{provider}/login"
        case "register": "/auth/{provider}/register"
        case "link": "/auth/{provider}/link"
        case "callback": "/auth/{provider}/callback"
        case "disconnect": "/auth/{provider}/disconnect"
        case "native": "/auth/{provider}/native"
        case "authenticate": "/auth/{provider}/authenticate"
        case "credentials": "/auth/{provider}/credentials"
        default: nil
        }
    }

    /// `/auth/{provider}/PATH` for the first of `endpoints` that `/auth/{provider}/…` (`segments`) matches, its
    /// `*` segments as `{code}`; `other` when none does.
    static func eventTemplate(_ segments: [String], _ endpoints: [ProviderEventEndpoint]) -> String {
        let rest = Array(segments.dropFirst(2))
        guard let endpoint = endpoints.first(where: { $0.match(rest) != nil }) else { return "other" }
        return "/auth/{provider}/" + endpoint.path.map { $0 == "*" ? "{code}" : $0 }.joined(separator: "/")
    }
}
