public import AuthFlow
package import AuthFlowHTTP

/// The `server:` section, used by `authflow serve`.
public struct ServerSettings: Sendable, Hashable {
    /// Where the sign-in server listens; default `127.0.0.1:8080`.
    public let listen: ListenAddress
    /// The URL browsers reach the server at, without a trailing slash (`https://app.example.com`).
    public let publicURL: String
    /// Keys cookie MACs and token encryption; at least 32 bytes. `nil` only in sandbox mode, when it
    /// was not given or its `${VAR}` is unset (the sandbox generates one).
    public let secret: Secret?
    /// Secrets `secret` replaced (`server.previous_secrets`), newest first, each at least 32 bytes: what they
    /// sealed, signed or encrypted still opens; nothing new is sealed under them. Default none.
    package let previousSecrets: [Secret]
    /// Path prefixes (`/app`) and absolute origins (`https://app.example.com`) that `return_to` may
    /// point at; default `["/"]`.
    package let allowedReturnTo: [String]
    /// Session lifetime in seconds; default 8 hours.
    package let sessionTTL: Double
    /// Whether a first sign-in creates a user; default `true`.
    package let signup: Bool
    /// Which providers' verified emails may link a first sign-in to an existing user; default ``EmailLinkPolicy/off``.
    package let linkByVerifiedEmail: EmailLinkPolicy
    /// Connection caps and timeouts of the listener (`server.limits`).
    package let limits: ConnectionLimits
    /// Peers whose `X-Forwarded-For` is believed (`server.trusted_proxies`); default none.
    package let trustedProxies: [IPNetwork]
    /// Rate limits on sign-in starts and callbacks; `nil` when `server.rate_limits: off`.
    package let rateLimits: RateLimitSettings?
    /// Where Prometheus `/metrics` is served (`server.metrics_listen`), on its own listener; `nil` (the
    /// default) serves no metrics.
    package let metricsListen: ListenAddress?
    /// How log lines are written (`server.log_format`); default ``LogFormat/text``.
    package let logFormat: LogFormat
    /// Lifetime in seconds of the bearer sessions native sign-ins start (`server.native_session_ttl`); default
    /// 30 days.
    package let nativeSessionTTL: Double
    /// How long, in seconds, a bearer refresh chain lasts from its sign-in (`server.native_session_max_age`): no
    /// refresh extends a session past it. Never shorter than ``nativeSessionTTL``; default
    /// ``defaultNativeSessionMaxAge`` (or ``nativeSessionTTL`` when that is longer).
    package let nativeSessionMaxAge: Double
    /// The path every sign-in route lives under (`server.path_prefix`); default `/auth`.
    /// The default `redirect_uri` follows it: `{public_url}{path_prefix}/{name}/callback`.
    package let pathPrefix: String
    /// Who may pass `GET /auth/check` (`server.access`); default: everyone signed in.
    package let access: AccessRules
    /// How long, in seconds, a session may go unused before it ends (`server.session_idle_timeout`); `nil`
    /// (the default) when sessions end only at their lifetime. Always shorter than ``sessionTTL``.
    package let sessionIdleTimeout: Double?
    /// The tenant-qualified access rules (`PROVIDER/TENANT:NAME`) and where each was written, checked against
    /// the resolved providers' plugins (their ``ProviderPreparing/tenantForm``) when the configuration resolves.
    package var tenantRuleSites: [TenantRuleSite] = []
    /// Where the audit trail goes (`server.audit_log`, docs/audit.md); `nil` (the default) keeps none.
    package var auditLog: AuditDestination?
    /// Where OpenTelemetry traces are exported (`server.tracing`); `nil` (the default) traces nothing.
    package var tracing: TracingSettings?

    /// `/auth`, the prefix of the sign-in routes unless `server.path_prefix` says otherwise.
    package static let defaultPathPrefix = Configuration.defaultPathPrefix

    /// 90 days: how long a bearer refresh chain lasts unless `server.native_session_max_age` says otherwise.
    package static let defaultNativeSessionMaxAge: Double = 90 * 86_400

    /// Whether `prefix` can be a `server.path_prefix`: `/` followed by one or more segments of letters,
    /// digits, `-`, `_`, `.` and `~`, none of them `.` or `..`, and no trailing `/` (`/auth`, `/login`,
    /// `/api/auth`). `/` alone is refused, so the app's own pages never share the sign-in routes' paths.
    package static func isValidPathPrefix(_ prefix: String) -> Bool {
        guard prefix.hasPrefix("/"), prefix.utf8.count <= 200 else { return false }
        let segments = prefix.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return segments.allSatisfy { segment in
            !segment.isEmpty && segment != "." && segment != ".."
                && segment.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                        || byte == 0x2D || byte == 0x5F || byte == 0x2E || byte == 0x7E
                }
        }
    }

    /// Creates server settings.
    package init(
        listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8080), publicURL: String, secret: Secret?,
        allowedReturnTo: [String] = ["/"], sessionTTL: Double = 8 * 3600, signup: Bool = true,
        linkByVerifiedEmail: EmailLinkPolicy = .off, limits: ConnectionLimits = ConnectionLimits(),
        trustedProxies: [IPNetwork] = [], rateLimits: RateLimitSettings? = RateLimitSettings(),
        metricsListen: ListenAddress? = nil, logFormat: LogFormat = .text, nativeSessionTTL: Double = 30 * 86_400,
        pathPrefix: String = ServerSettings.defaultPathPrefix, access: AccessRules = AccessRules(),
        previousSecrets: [Secret] = [], sessionIdleTimeout: Double? = nil, nativeSessionMaxAge: Double? = nil
    ) {
        self.nativeSessionMaxAge = nativeSessionMaxAge ?? max(Self.defaultNativeSessionMaxAge, nativeSessionTTL)
        self.previousSecrets = previousSecrets
        self.access = access
        self.sessionIdleTimeout = sessionIdleTimeout
        self.nativeSessionTTL = nativeSessionTTL
        self.pathPrefix = pathPrefix
        self.metricsListen = metricsListen
        self.logFormat = logFormat
        self.listen = listen
        self.publicURL = publicURL
        self.secret = secret
        self.allowedReturnTo = allowedReturnTo
        self.sessionTTL = sessionTTL
        self.signup = signup
        self.linkByVerifiedEmail = linkByVerifiedEmail
        self.limits = limits
        self.trustedProxies = trustedProxies
        self.rateLimits = rateLimits
    }
}
