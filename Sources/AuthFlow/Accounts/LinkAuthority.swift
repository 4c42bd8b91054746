/// What established the signed-in user that a `link` joins an identity to (``AccountSituation/linkAuthority``).
///
/// A session cookie is ambient: a browser sends it with a request another site makes it send. A link may be
/// authorised by it only where something else proves the request is the user's own: the sign-in's flow
/// cookie (a web link, whose intent was sealed in this browser at its start) or the server's same-origin check.
package enum LinkAuthority: String, Sendable, Hashable, CaseIterable {
    /// A web sign-in begun with `GET {prefix}/{provider}/link`: its intent and state are sealed in the flow
    /// cookie of the browser whose session it joins.
    case flowBoundCookie = "flow_bound_cookie"
    /// The session cookie of a request that passed the same-origin check.
    case sameOriginCookie = "same_origin_cookie"
    /// `Authorization: Bearer`: only code that holds the token sends it.
    case bearer
    /// A session cookie nothing else vouches for: never authorises a link.
    case ambientCookie = "ambient_cookie"

    /// Whether this authority may authorise a link.
    package var authorisesLink: Bool { self != .ambientCookie }
}
