public import AuthFlow
import AuthFlowJOSE

extension SignInServer {
    /// The server's settings (the `server:` section of providers.yaml, plus library-only tunables).
    public struct Options: Sendable {
        /// The URL browsers reach the server at, e.g. `https://app.example.com` (no trailing slash).
        public var publicURL: String
        /// Keys everything the server seals or MACs (flow cookies, native nonces, provider logout states and hint
        /// cookies, the session ids `GET /auth/sessions` lists) and, in the SQL stores, token encryption; at least
        /// 32 bytes.
        public var secret: Secret
        /// Secrets `secret` replaced (`server.previous_secrets`), newest first: what was sealed under them still
        /// opens (not the listed session ids, which change with `secret`); everything new is sealed under `secret`.
        package var previousSecrets: [Secret] = []
        /// Path prefixes and absolute origins `return_to` may point at.
        package var allowedReturnTo: [String]
        /// Session lifetime in seconds.
        public var sessionTTL: Double
        /// Whether a first sign-in creates a user.
        package var signup: Bool
        /// Which providers' verified emails may link a first sign-in to the one user holding exactly that verified
        /// email (see `EmailLinkPolicy`).
        package var linkByVerifiedEmail: EmailLinkPolicy
        /// Keep the traces of recent sign-ins (bounded, in memory) for ``SignInServer/signedInUser(_:)``, which
        /// the sandbox demo page shows.
        package var keepsTraces: Bool
        /// The sign-in flow's tunables (flow lifetime, leeway).
        package var flow: OAuthFlow.Options
        /// The largest Apple notification body accepted, in bytes.
        package var maximumNotificationBytes: Int
        /// How long Apple's first-login name waits for a successful sign-in, in seconds; never longer than
        /// the flow it came with (`flowTTL`).
        package var pendingProfileTTL: Double
        /// Token buckets per client address on sign-in starts and callbacks; `nil` turns them off
        /// (`server.rate_limits: off`).
        package var rateLimits: RateLimitSettings?
        /// How long, in seconds, a session found valid may answer `GET /auth/check` and `GET /auth/session`
        /// without reading the stores again (1 by default; 0 reads them on every request). Revocations
        /// handled by this server take effect on the next request regardless; this bounds how late a
        /// revocation made by another instance sharing the stores is seen (see docs/server.md).
        public var sessionCacheLifetime: Double = 1
        /// Lifetime in seconds of the bearer sessions native sign-ins start (`server.native_session_ttl`); default
        /// 30 days.
        package var nativeSessionTTL: Double = 30 * 86_400
        /// How long, in seconds, a bearer refresh chain lasts from its sign-in (`server.native_session_max_age`):
        /// each refresh's session ends at the earlier of ``nativeSessionTTL`` from the refresh and this from the
        /// sign-in, and a refresh at or past it is refused; default 90 days.
        package var nativeSessionMaxAge: Double = ServerSettings.defaultNativeSessionMaxAge
        /// The IPv6 prefix length that makes one client for the rate limits (`server.limits.ipv6_prefix`, 64 by
        /// default): one client usually holds a whole /64, which would otherwise be 2^64 buckets.
        package var ipv6ClientPrefix: Int = 64
        /// The path every route but `/healthz` lives under (`server.path_prefix`): `/auth` by default, e.g.
        /// `/login` serves `/login/{provider}/login`, `/login/session`. Give a prefix
        /// `ServerSettings.isValidPathPrefix(_:)` accepts (the configuration reader refuses others).
        public var pathPrefix: String = ServerSettings.defaultPathPrefix
        /// Who may pass `GET /auth/check` (`server.access`): a signed-in user the rules refuse gets 403.
        package var access = AccessRules()
        /// How long, in seconds, a session may go unused before it ends (`server.session_idle_timeout`); `nil`
        /// (the default) turns the rule off. Keep it shorter than ``sessionTTL``: a session never outlives its
        /// lifetime, used or not. Use is written at most once per ``idleRenewalInterval``.
        package var sessionIdleTimeout: Double?
        /// The audit trail security events are written to (`server.audit_log`); `nil` keeps none. The server
        /// records into it but does not own it: whoever opened it reopens and closes it.
        package var audit: AuditTrail?

        /// How old a session's written last use may grow before a use writes it again, when
        /// ``sessionIdleTimeout`` is on: a tenth of the timeout. A session in use is written at most ten times
        /// per timeout (checks in between read nothing more), and a session left alone ends between 90% and 100%
        /// of the timeout after its last real use. `nil` when the rule is off.
        package var idleRenewalInterval: Double? { sessionIdleTimeout.map { $0 / 10 } }

        /// Creates options with the hardened defaults (rate limits included: `server.rate_limits`' defaults; no
        /// linking by verified email).
        public init(
            publicURL: String, secret: Secret, allowedReturnTo: [String] = ["/"], sessionTTL: Double = 8 * 3600,
            signup: Bool = true, keepsTraces: Bool = false, flow: SignIn.Options = .init(),
            maximumNotificationBytes: Int = 64 * 1024, pendingProfileTTL: Double = 600
        ) {
            self.init(
                publicURL: publicURL, secret: secret, allowedReturnTo: allowedReturnTo, sessionTTL: sessionTTL,
                signup: signup, keepsTraces: keepsTraces, flow: flow,
                maximumNotificationBytes: maximumNotificationBytes, pendingProfileTTL: pendingProfileTTL,
                rateLimits: RateLimitSettings())
        }

        /// Creates options with these email linking rules and rate limits (`nil` turns them off).
        package init(
            publicURL: String, secret: Secret, allowedReturnTo: [String] = ["/"], sessionTTL: Double = 8 * 3600,
            signup: Bool = true, linkByVerifiedEmail: EmailLinkPolicy = .off, keepsTraces: Bool = false,
            flow: SignIn.Options = .init(), maximumNotificationBytes: Int = 64 * 1024, pendingProfileTTL: Double = 600,
            rateLimits: RateLimitSettings?
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
            self.rateLimits = rateLimits
        }

        /// Options from the `server:` section.
        ///
        /// - Throws: `ConfigurationError` when there is no `server:` section, or `server.secret`
        ///   is missing or shorter than 32 bytes.
        package init(configuration: Configuration) throws(ConfigurationError) {
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
                sessionTTL: server.sessionTTL, signup: server.signup, linkByVerifiedEmail: server.linkByVerifiedEmail,
                rateLimits: server.rateLimits)
            self.nativeSessionTTL = server.nativeSessionTTL
            self.nativeSessionMaxAge = server.nativeSessionMaxAge
            self.ipv6ClientPrefix = server.limits.ipv6Prefix
            self.pathPrefix = server.pathPrefix
            self.access = server.access
            self.previousSecrets = server.previousSecrets
            self.sessionIdleTimeout = server.sessionIdleTimeout
        }

        /// The keyring of `secret` and `previousSecrets`, from which every key the server derives comes.
        ///
        /// - Throws: `JOSEError` `weakKey` when one of them is shorter than 32 bytes.
        package func keyring() throws(JOSEError) -> SecretKeyring {
            try SecretKeyring(current: secret.value, previous: previousSecrets.map(\.value))
        }
    }

    static func secretCode(_ secret: Secret?) -> ConfigurationIssue.Code {
        secret == nil ? .missingKey : .weakSecret
    }
}
