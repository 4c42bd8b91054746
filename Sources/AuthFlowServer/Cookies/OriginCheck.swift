import AuthFlowHTTP

/// Refuses state-changing requests (logout, disconnect, account delete) that another site triggered.
///
/// A request passes when every signal it carries says same-origin:
/// - `Sec-Fetch-Site`, when present, is `same-origin` or `none` (typed into the address bar); browsers
///   set it and pages cannot, so it is the deciding signal where it exists;
/// - `Origin`, when present, equals the server's public origin; an opaque `Origin: null` (which
///   browsers send for same-origin POSTs from pages whose referrer policy is `no-referrer`) passes
///   only together with `Sec-Fetch-Site: same-origin`;
/// - without either, a `Referer`, when present, must be on the public origin.
/// A request with none of these headers comes from a non-browser client (curl, a backend) and passes:
/// browsers send `Origin` with every cross-origin POST.
struct OriginCheck: Sendable {
    /// The lower-cased public origin, e.g. `http://localhost:8080`.
    let publicOrigin: String

    init(publicURL: String) {
        publicOrigin = ReturnToPolicy.origin(of: publicURL) ?? publicURL.lowercased()
    }

    /// - Throws: ``ServerError`` `cross_origin_request` (403).
    func check(_ request: HTTPServerRequest) throws(ServerError) {
        let origin = request.headers["Origin"]
        let site = request.headers["Sec-Fetch-Site"]?.trimmingCharacters().lowercased()
        if let site {
            guard site == "same-origin" || site == "none" else { throw refusal("Sec-Fetch-Site: \(site.prefix(20))") }
        }
        if let origin {
            if let parsed = ReturnToPolicy.origin(of: origin.trimmingCharacters()) {
                guard parsed == publicOrigin else { throw refusal("an Origin of \(parsed)") }
            } else {
                guard site == "same-origin" else { throw refusal("a null or opaque Origin") }
            }
        }
        if origin == nil, request.headers["Sec-Fetch-Site"] == nil, let referer = request.headers["Referer"] {
            guard ReturnToPolicy.origin(of: referer) == publicOrigin else { throw refusal("a Referer of another site") }
        }
    }

    private func refusal(_ found: String) -> ServerError {
        ServerError(
            .crossOriginRequest,
            "expected a same-origin request from \(publicOrigin), found \(found)", status: 403)
    }
}
