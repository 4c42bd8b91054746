/// A completed sign-in: who the user is, the tokens, and what to do next.
public struct SignInResult: Sendable {
    /// The configured provider name.
    public let provider: String
    /// The verified identity.
    public let identity: VerifiedIdentity
    /// The tokens from the token endpoint (redacted when printed).
    public let tokens: TokenSet
    /// Where the browser should go next, as given when the sign-in began.
    public let returnTo: String?
    /// What the user asked for when the sign-in began.
    public let intent: SignInIntent
    /// Unsigned profile data from the callback (Apple's first-login name), if any.
    public let unverifiedProfile: UnverifiedProfile?
    /// Every step of the sign-in.
    package let trace: [TraceEvent]

    /// Creates a result.
    package init(
        provider: String, identity: VerifiedIdentity, tokens: TokenSet, returnTo: String?, intent: SignInIntent,
        unverifiedProfile: UnverifiedProfile?, trace: [TraceEvent]
    ) {
        self.provider = provider
        self.identity = identity
        self.tokens = tokens
        self.returnTo = returnTo
        self.intent = intent
        self.unverifiedProfile = unverifiedProfile
        self.trace = trace
    }
}
