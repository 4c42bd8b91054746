import AuthFlow
import Foundation

/// When and how the user authenticated at the provider, as a session keeps it for step-up checks: the verified
/// id_token's `auth_time` and `acr` (OpenID Connect Core §2), when it had them.
struct SessionAuthentication: Sendable, Equatable {
    var authTime: Date?
    var acr: String?

    init(authTime: Date? = nil, acr: String? = nil) {
        self.authTime = authTime
        self.acr = acr
    }

    /// The `auth_time` (a non-negative integer) and `acr` of an identity verified from an id_token; none for an
    /// identity from elsewhere (userinfo, a provider without OpenID Connect).
    init(of identity: VerifiedIdentity) {
        guard identity.source == .idToken else {
            self.init()
            return
        }
        let time = identity.rawClaims["auth_time"]?.int64Value.flatMap { $0 >= 0 ? $0 : nil }
        self.init(
            authTime: time.map { Date(timeIntervalSince1970: Double($0)) },
            acr: identity.rawClaims["acr"]?.stringValue)
    }
}
