public import AuthFlowJOSE

/// Why a sign-in was refused. Its ``code`` is stable and becomes the server's `{"error": CODE}`.
///
/// Messages say what was expected and what was found; they never contain a state, code, token, secret or
/// key. Provider-supplied error codes (e.g. `access_denied`) are kept in ``providerError`` after being
/// checked against the RFC 6749 error-code character set.
public struct SignInError: CodedError, Sendable, Equatable {
    /// A stable snake_case error code.
    public typealias Code = ErrorCode<SignInError>

    /// The stable error code.
    public let code: Code
    /// What was expected and what was found; safe to show and log.
    public let message: String
    /// The configured provider name, when known.
    public var provider: String?
    /// The provider's own error code (`error=access_denied`, token endpoint `error`), when it sent one.
    public var providerError: String?
    /// The id_token check that failed, for `Code.idTokenInvalid` and `Code.jwksUnavailable`.
    public var joseCode: JOSEError.Code?
    /// The claim involved, when a claim check failed.
    public var claim: String?
    /// The upstream HTTP status, for token and userinfo endpoint errors.
    public var upstreamStatus: Int?
    /// The steps of the sign-in up to and including the failed one (empty when the flow never ran).
    /// Not part of equality.
    package var trace: [TraceEvent] = []

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, provider: String? = nil, providerError: String? = nil,
        joseCode: JOSEError.Code? = nil, claim: String? = nil, upstreamStatus: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.provider = provider
        self.providerError = providerError
        self.joseCode = joseCode
        self.claim = claim
        self.upstreamStatus = upstreamStatus
    }

    /// The HTTP status a server should answer with: 400 (malformed or stale request), 401 (the provider or
    /// its tokens did not authenticate the user), 403 (a cross-site or replay attempt was refused, or the user's
    /// tenant is not allowed) or 503 (the
    /// spent-state set did not answer), 409 for a native sign-in's nonce used before, 502 when the provider's
    /// pushed authorization request endpoint refused the start.
    public var statusHint: Int {
        switch code {
        case .stateProviderMismatch, .browserBindingMismatch, .issuerMismatch, .nonceProviderMismatch,
            .tenantNotAllowed, .hostedDomainMismatch, .organizationNotAllowed, .teamNotAllowed:
            403
        case .nonceReused: 409
        case .pushedAuthorizationError: 502
        case .flowStoreUnavailable: 503
        case .invalidState, .stateExpired, .wrongCallbackMethod, .missingCode, .unknownProvider, .invalidRequest,
            .invalidUserField, .invalidNonce, .invalidStepUp:
            400
        default: 401
        }
    }

    /// Equal when everything but the trace of the failed sign-in is equal.
    public static func == (lhs: SignInError, rhs: SignInError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.provider == rhs.provider
            && lhs.providerError == rhs.providerError && lhs.joseCode == rhs.joseCode && lhs.claim == rhs.claim
            && lhs.upstreamStatus == rhs.upstreamStatus
    }
}

extension ErrorCode where Domain == SignInError {
    /// The callback's `state` is missing, unknown, already used, or was sent more than once.
    package static var invalidState: Self { Self(rawValue: "invalid_state") }
    /// The callback's `state` was issued longer ago than the flow lifetime.
    package static var stateExpired: Self { Self(rawValue: "state_expired") }
    /// The callback's `state` was issued for another provider.
    package static var stateProviderMismatch: Self { Self(rawValue: "state_provider_mismatch") }
    /// The callback did not come from the browser that began the sign-in.
    package static var browserBindingMismatch: Self { Self(rawValue: "browser_binding_mismatch") }
    /// The callback used GET where POST (form_post) was expected, or the other way round.
    package static var wrongCallbackMethod: Self { Self(rawValue: "wrong_callback_method") }
    /// The callback's `iss` parameter (RFC 9207) names another issuer than this provider's: a mix-up
    /// attack, or a response meant for another provider configuration.
    package static var issuerMismatch: Self { Self(rawValue: "issuer_mismatch") }
    /// The provider redirected back with an error (e.g. `access_denied`), see ``SignInError/providerError``.
    package static var providerError: Self { Self(rawValue: "provider_error") }
    /// The callback carries no (or more than one) authorization `code`.
    // swift-format-ignore: DontRepeatTypeInStaticProperties
    package static var missingCode: Self { Self(rawValue: "missing_code") }
    /// The token endpoint answered with an error status or an OAuth error body.
    package static var tokenEndpointError: Self { Self(rawValue: "token_endpoint_error") }
    /// The token endpoint answered 2xx with something that is not a usable token response.
    package static var invalidTokenResponse: Self { Self(rawValue: "invalid_token_response") }
    /// The id_token failed verification; ``SignInError/joseCode`` says which check.
    package static var idTokenInvalid: Self { Self(rawValue: "id_token_invalid") }
    /// The provider's JWKS could not be fetched or parsed.
    package static var jwksUnavailable: Self { Self(rawValue: "jwks_unavailable") }
    /// The userinfo endpoint failed, answered with bad JSON, or returned no subject.
    package static var userinfoError: Self { Self(rawValue: "userinfo_error") }
    /// The userinfo subject differs from the verified id_token's `sub`.
    package static var userinfoSubjectMismatch: Self { Self(rawValue: "userinfo_subject_mismatch") }
    /// A provider could not be reached (timeout, connection or TLS failure).
    package static var providerUnreachable: Self { Self(rawValue: "provider_unreachable") }
    /// No provider with that name is configured.
    package static var unknownProvider: Self { Self(rawValue: "unknown_provider") }
    /// The spent-state set (`FlowStore`) did not answer, so the callback could not be made single-use.
    package static var flowStoreUnavailable: Self { Self(rawValue: "flow_store_unavailable") }
    /// The client credential (e.g. Apple's ES256 client secret) could not be produced.
    package static var clientAuthenticationFailed: Self { Self(rawValue: "client_authentication_failed") }
    /// The application's `onUnverifiedProfile` handler failed, so the sign-in stopped before the code exchange.
    package static var unverifiedProfileNotStored: Self { Self(rawValue: "unverified_profile_not_stored") }
    /// The request to begin or complete a sign-in is malformed (e.g. an empty browser binding).
    package static var invalidRequest: Self { Self(rawValue: "invalid_request") }
    /// A native sign-in's `nonce` is not one this server issued (malformed, or sealed under another secret).
    package static var invalidNonce: Self { Self(rawValue: "invalid_nonce") }
    /// A native sign-in's `nonce` was issued more than its lifetime (10 minutes) ago.
    package static var nonceExpired: Self { Self(rawValue: "nonce_expired") }
    /// A native sign-in's `nonce` was issued for another provider.
    package static var nonceProviderMismatch: Self { Self(rawValue: "nonce_provider_mismatch") }
    /// The ID token's `nonce` is missing, or is neither the issued nonce nor its SHA-256 in lowercase hex.
    package static var nonceMismatch: Self { Self(rawValue: "nonce_mismatch") }
    /// The native sign-in's nonce (and so its ID token) was already used, on this or another instance.
    package static var nonceReused: Self { Self(rawValue: "nonce_reused") }
    /// The identity's organization (Microsoft's tenant) is not among those the provider's configuration
    /// accepts (`allowed_tenants`).
    package static var tenantNotAllowed: Self { Self(rawValue: "tenant_not_allowed") }
    /// The Google account is not one of the provider's `hosted_domain`: the `hd` claim is missing or names
    /// another domain (the email's domain never counts).
    package static var hostedDomainMismatch: Self { Self(rawValue: "hosted_domain_mismatch") }
    /// The GitHub user belongs to none of the provider's `allowed_organizations`.
    package static var organizationNotAllowed: Self { Self(rawValue: "organization_not_allowed") }
    /// The GitHub user belongs to none of the provider's `allowed_teams`.
    package static var teamNotAllowed: Self { Self(rawValue: "team_not_allowed") }
    /// An event a state machine was not waiting for (a driver bug, not user input). ``OAuthFlow`` no longer
    /// answers with it: such an event is a precondition there.
    package static var unexpectedEvent: Self { Self(rawValue: "unexpected_event") }
    /// Unsigned profile data in the callback (Apple's `user` field) is not valid UTF-8 or not the expected
    /// JSON; the sign-in is refused and nothing is stored.
    package static var invalidUserField: Self { Self(rawValue: "invalid_user_field") }
    /// The pushed authorization request endpoint (RFC 9126) refused the request (``SignInError/providerError``
    /// and ``SignInError/upstreamStatus`` say how), or answered without a usable `request_uri` and
    /// `expires_in`, or with one that expired before the redirect.
    package static var pushedAuthorizationError: Self { Self(rawValue: "pushed_authorization_error") }
    /// A `claims:` path is missing from the id_token claims or userinfo JSON, or holds the wrong type;
    /// ``SignInError/claim`` names the path.
    package static var claimMappingFailed: Self { Self(rawValue: "claim_mapping_failed") }
}
