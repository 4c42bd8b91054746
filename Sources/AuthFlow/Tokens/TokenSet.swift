package import AuthFlowJOSE

/// The tokens a completed sign-in received from the token endpoint.
///
/// Its `description` and `debugDescription` redact every token value so a `TokenSet` can be logged or
/// interpolated without leaking credentials.
public struct TokenSet: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access token.
    public let accessToken: String
    /// The token type, normally `Bearer`.
    public let tokenType: String?
    /// The refresh token, when the provider issued one.
    public let refreshToken: String?
    /// Seconds the access token is valid for, when the provider said.
    public let expiresIn: Int64?
    /// The raw id_token, when one was returned (verified before the sign-in completes).
    public let idToken: String?
    /// The granted scopes, when the provider returned them.
    public let scope: String?
    /// The DPoP key the tokens are bound to (RFC 9449), when a proof was sent; kept with the stored tokens.
    package var dpopKey: JWK?

    /// Creates a token set.
    package init(
        accessToken: String, tokenType: String?, refreshToken: String?, expiresIn: Int64?, idToken: String?,
        scope: String?
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.idToken = idToken
        self.scope = scope
    }

    /// A redacted summary: which tokens are present, never their values.
    public var description: String {
        var parts = ["access_token: <redacted>"]
        if let tokenType { parts.append("token_type: \(tokenType)") }
        if refreshToken != nil { parts.append("refresh_token: <redacted>") }
        if let expiresIn { parts.append("expires_in: \(expiresIn)") }
        if idToken != nil { parts.append("id_token: <redacted>") }
        if let scope { parts.append("scope: \(scope)") }
        if dpopKey != nil { parts.append("dpop: <redacted>") }
        return "TokenSet(" + parts.joined(separator: ", ") + ")"
    }

    /// The same redacted summary as ``description``.
    public var debugDescription: String { description }

    /// A mirror without children, so `dump` and reflection cannot print token values.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
