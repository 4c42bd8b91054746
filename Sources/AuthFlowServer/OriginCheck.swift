import AuthFlowHTTP

/// Refuses state-changing requests (logout, disconnect, account delete) that another site triggered.
///
/// A request passes when every signal it carries says same-origin:
/// - `Origin`, when present, equals the server's public origin (`null` is refused);
/// - `Sec-Fetch-Site`, when present, is `same-origin` or `none` (typed into the address bar);
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
        if let origin {
            guard ReturnToPolicy.origin(of: origin.trimmingCharacters()) == publicOrigin else {
                throw refusal("an Origin of \(ReturnToPolicy.origin(of: origin) ?? "null or opaque")")
            }
        }
        if let site = request.headers["Sec-Fetch-Site"]?.trimmingCharacters().lowercased() {
            guard site == "same-origin" || site == "none" else { throw refusal("Sec-Fetch-Site: \(site.prefix(20))") }
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
