public import AuthFlowHTTP
public import AuthFlowJOSE

/// How a provider's tokens and profile become a ``VerifiedIdentity``. Every requirement has a default (the
/// OpenID Connect standard claims, one userinfo `GET`); ``StandardIdentity`` is that default.
public protocol IdentityStrategy: Sendable {
    /// Maps verified id_token claims to an identity.
    ///
    /// - Throws: ``SignInError`` with code `id_token_invalid` when the subject is missing.
    func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError) -> VerifiedIdentity

    /// Every profile request of a sign-in, fetched in order (GitHub: `/user`, then `/user/emails`); by default
    /// one `GET` of the userinfo endpoint with the access token as a Bearer token.
    ///
    /// - Throws: ``SignInError`` with code `userinfo_error` when no request can be built.
    func userinfoRequests(for provider: ResolvedProvider, accessToken: String) throws(SignInError)
        -> [HTTPClientRequest]

    /// Maps the JSON bodies of ``userinfoRequests(for:accessToken:)``, in order (never empty), to an identity.
    ///
    /// - Throws: ``SignInError`` with code `userinfo_error` when the subject is missing.
    func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity

    /// Reads unsigned profile data from the callback (Apple's first-login `user` field); `nil`, the default,
    /// when none.
    ///
    /// - Throws: ``SignInError`` with `invalid_user_field` when the data is present but unreadable; the
    ///   sign-in is then refused before anything is stored.
    func unverifiedProfile(from parameters: CallbackParameters, provider: ResolvedProvider) throws(SignInError)
        -> UnverifiedProfile?
}

extension IdentityStrategy {
    /// OpenID Connect standard claims: `sub`, `email`, `email_verified` (`true` or `"true"`), `name`.
    public func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        try IdentityClaims.identity(
            fromIDToken: claims, subject: IdentityClaims.subject(ofIDToken: claims, provider: provider),
            provider: provider)
    }

    /// `GET` the userinfo endpoint with the access token as a Bearer token.
    public func userinfoRequests(for provider: ResolvedProvider, accessToken: String) throws(SignInError)
        -> [HTTPClientRequest]
    {
        guard let url = provider.endpoints.userinfo else {
            throw SignInError(
                .userinfoError, "expected a userinfo endpoint for provider '\(provider.name)', found none",
                provider: provider.name)
        }
        var request = HTTPClientRequest(method: "GET", url: url)
        request.headers["Accept"] = "application/json"
        request.setBearer(accessToken)
        return [request]
    }

    /// OpenID Connect standard claims of the first body: `sub`, `email`, `email_verified` (`true` or
    /// `"true"`), `name`.
    public func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        let object = try IdentityClaims.userinfoObject(responses, provider: provider)
        guard let subject = object["sub"]?.stringValue, !subject.isEmpty else {
            throw SignInError(
                .userinfoError, "expected a non-empty string 'sub' in the userinfo response, found none",
                provider: provider.name, claim: "sub")
        }
        return VerifiedIdentity(
            provider: provider.name, subject: subject, email: object["email"]?.stringValue,
            emailVerified: IdentityClaims.flag(object["email_verified"]) ?? false,
            name: IdentityClaims.displayName(object), source: .userinfo, rawClaims: object)
    }

    /// No unsigned profile data.
    public func unverifiedProfile(from parameters: CallbackParameters, provider: ResolvedProvider)
        throws(SignInError) -> UnverifiedProfile?
    {
        nil
    }
}

/// The default identity mapping: OpenID Connect standard claims from the id_token or one userinfo response.
public struct StandardIdentity: IdentityStrategy {
    /// Creates the mapping.
    public init() {}
}
