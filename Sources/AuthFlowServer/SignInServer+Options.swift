public import AuthFlow
public import AuthFlowJOSE

extension SignInServer {
    /// The server's settings (the `server:` section of providers.yaml, plus library-only tunables).
    public struct Options: Sendable {
        /// The URL browsers reach the server at, e.g. `https://app.example.com` (no trailing slash).
        public var publicURL: String
        /// Keys the flow-cookie MAC (and, in the SQLite store, token encryption); at least 32 bytes.
        public var secret: Secret
        /// Path prefixes and absolute origins `return_to` may point at.
        public var allowedReturnTo: [String]
        /// Session lifetime in seconds.
        public var sessionTTL: Double
        /// Whether a first sign-in creates a user.
        public var signup: Bool
        /// Whether a first sign-in with a verified email that exactly one user has (verified) links to that user.
        public var linkByVerifiedEmail: Bool
        /// Keep the traces of recent sign-ins (bounded, in memory) for ``SignInServer/signedInUser(_:)``, which
        /// the sandbox demo page shows.
        public var keepsTraces: Bool
        /// The sign-in flow's tunables (flow lifetime, leeway).
        public var flow: OAuthFlow.Options
        /// The largest Apple notification body accepted, in bytes.
        public var maximumNotificationBytes: Int
        /// How long Apple's first-login name waits for a successful sign-in, in seconds.
        public var pendingProfileTTL: Double
        /// How long, in seconds, a session found valid may answer `GET /auth/check` and `GET /auth/session`
        /// without reading the stores again (1 by default; 0 reads them on every request). Revocations
        /// handled by this server take effect on the next request regardless; this bounds how late a
        /// revocation made by another instance sharing the stores is seen (see docs/server.md).
        public var sessionCacheLifetime: Double = 1

        /// Creates options with the hardened defaults.
        public init(
            publicURL: String, secret: Secret, allowedReturnTo: [String] = ["/"], sessionTTL: Double = 8 * 3600,
            signup: Bool = true, linkByVerifiedEmail: Bool = false, keepsTraces: Bool = false,
            flow: OAuthFlow.Options = .init(),
            maximumNotificationBytes: Int = 64 * 1024, pendingProfileTTL: Double = 3600
        ) {
            var base = Substring(publicURL)
            while base.hasSuffix("/") { base = base.dropLast() }
            self.publicURL = String(base)
            self.secret = secret
            self.allowedReturnTo = allowedReturnTo
            self.sessionTTL = sessionTTL
            self.signup = signup
            self.linkByVerifiedEmail = linkByVerifiedEmail
            self.keepsTraces = keepsTraces
            self.flow = flow
            self.maximumNotificationBytes = maximumNotificationBytes
            self.pendingProfileTTL = pendingProfileTTL
        }

        /// Options from the `server:` section.
        ///
        /// - Throws: ``AuthFlow/ConfigurationError`` when there is no `server:` section, or `server.secret`
        ///   is missing or shorter than 32 bytes.
        public init(configuration: Configuration) throws(ConfigurationError) {
            guard let server = configuration.server else {
                throw ConfigurationError(issues: [
                    ConfigurationIssue(
                        code: .missingKey,
                        message: "authflow serve needs a 'server:' section with public_url and secret", location: nil)
                ])
            }
            guard let secret = server.secret, secret.value.utf8.count >= 32 else {
                throw ConfigurationError(issues: [
                    ConfigurationIssue(
                        code: SignInServer.secretCode(server.secret),
                        message: "server.secret must be set to at least 32 bytes (e.g. `openssl rand -hex 32`)",
                        location: nil)
                ])
            }
            self.init(
                publicURL: server.publicURL, secret: secret, allowedReturnTo: server.allowedReturnTo,
                sessionTTL: server.sessionTTL, signup: server.signup, linkByVerifiedEmail: server.linkByVerifiedEmail)
        }
    }

    static func secretCode(_ secret: Secret?) -> ConfigurationIssue.Code {
        secret == nil ? .missingKey : .weakSecret
    }

    /// Where the server keeps its state.
    public struct Stores: Sendable {
        /// Short-lived sign-in flows (state → flow record).
        public var flows: any FlowStore
        /// Users, linked identities, encrypted tokens, pending profiles, applied notifications.
        public var accounts: any AccountStore
        /// Sessions (by the digest of the session cookie).
        public var sessions: any SessionStore

        /// Wraps three stores.
        public init(flows: any FlowStore, accounts: any AccountStore, sessions: any SessionStore) {
            self.flows = flows
            self.accounts = accounts
            self.sessions = sessions
        }

        /// In-memory stores (tests, demos; nothing survives a restart).
        public static func memory(clock: any WallClock) -> Stores {
            Stores(
                flows: InMemoryFlowStore(clock: clock), accounts: InMemoryAccountStore(clock: clock),
                sessions: InMemorySessionStore(clock: clock))
        }
    }
}
