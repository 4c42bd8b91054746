package import AuthFlowJSON

/// Creates the positioned ``ConfigurationIssue``s that provider resolution reports.
package enum ResolutionIssue {
    /// The issue codes resolution uses.
    package enum Kind: String, Sendable {
        /// `type:` names no registered plugin.
        case unknownProviderType = "unknown_provider_type"
        /// `capabilities:` names something that is not a capability.
        case unknownCapability = "unknown_capability"
        /// A capability the provider cannot do was switched on.
        case unsupportedCapability = "unsupported_capability"
        /// A capability the provider needs was switched off.
        case requiredCapability = "required_capability"
        /// A key the plugin needs is absent.
        case missingRequiredKey = "missing_required_key"
        /// An endpoint the flow needs has neither a default nor an override.
        case missingEndpoint = "missing_endpoint"
        /// `oidc` is on but no issuer is known.
        case missingIssuer = "missing_issuer"
        /// Neither `redirect_uri` nor `server.public_url` is set.
        case missingRedirectURI = "missing_redirect_uri"
        /// The provider needs its plugin's asynchronous preparation (OpenID Connect discovery), and the
        /// synchronous resolution cannot do it.
        case discoveryRequired = "discovery_required"
        /// A setting's value is unusable (e.g. a private key that does not parse).
        case invalidValue = "invalid_value"
        /// `client_auth` names a method the provider (or its issuer's discovery document) does not allow.
        case unsupportedClientAuthentication = "unsupported_client_authentication"
    }

    /// An issue of `kind` with `message`, at `location`. Plugins use it for their own ``ProviderPlugin/validate(_:capabilities:)`` checks.
    package static func make(_ kind: Kind, _ message: String, _ location: SourceLocation?) -> ConfigurationIssue {
        ConfigurationIssue(code: kind.code, message: message, location: location)
    }
}

extension ResolutionIssue.Kind {
    /// The issue code this kind reports (the same string as its raw value).
    package var code: ConfigurationIssue.Code { ConfigurationIssue.Code(rawValue: rawValue) }
}

/// The codes of ``ResolutionIssue/Kind`` as issue codes, to compare an issue with (`invalid_value` is
/// ``invalidValue``).
extension ErrorCode where Domain == ConfigurationIssue {
    /// `type:` names no registered plugin.
    package static var unknownProviderType: Self { ResolutionIssue.Kind.unknownProviderType.code }
    /// `capabilities:` names something that is not a capability.
    package static var unknownCapability: Self { ResolutionIssue.Kind.unknownCapability.code }
    /// A capability the provider cannot do was switched on.
    package static var unsupportedCapability: Self { ResolutionIssue.Kind.unsupportedCapability.code }
    /// A capability the provider needs was switched off.
    package static var requiredCapability: Self { ResolutionIssue.Kind.requiredCapability.code }
    /// A key the plugin needs is absent.
    package static var missingRequiredKey: Self { ResolutionIssue.Kind.missingRequiredKey.code }
    /// An endpoint the flow needs has neither a default nor an override.
    package static var missingEndpoint: Self { ResolutionIssue.Kind.missingEndpoint.code }
    /// `oidc` is on but no issuer is known.
    package static var missingIssuer: Self { ResolutionIssue.Kind.missingIssuer.code }
    /// Neither `redirect_uri` nor `server.public_url` is set.
    package static var missingRedirectURI: Self { ResolutionIssue.Kind.missingRedirectURI.code }
    /// The provider needs OpenID Connect discovery, which the synchronous resolution cannot do.
    package static var discoveryRequired: Self { ResolutionIssue.Kind.discoveryRequired.code }
    /// `client_auth` names a method the provider (or its issuer's discovery document) does not allow.
    package static var unsupportedClientAuthentication: Self {
        ResolutionIssue.Kind.unsupportedClientAuthentication.code
    }
}
