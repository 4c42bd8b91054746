package import AuthFlowJSON

/// Why an OpenID Connect issuer's discovery document could not be used.
///
/// Messages say what was expected and what was found; they never contain a secret or a token (discovery
/// documents hold neither). ``issuer`` and ``field`` say where the problem is.
package struct OIDCDiscoveryError: CodedError, Sendable, Equatable {
    /// A stable snake_case error code.
    package typealias Code = ErrorCode<OIDCDiscoveryError>

    /// The stable error code.
    package let code: Code
    /// What was expected and what was found; safe to show and log.
    package let message: String
    /// The issuer whose discovery failed.
    package var issuer: String?
    /// The discovery member involved (e.g. `token_endpoint`), when one is.
    package var field: String?

    /// Creates an error.
    package init(_ code: Code, _ message: String, issuer: String? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.issuer = issuer
        self.field = field
    }
}

extension ErrorCode where Domain == OIDCDiscoveryError {
    /// The configured issuer is not an absolute `https://` URL (or `http://` on a loopback host) without
    /// query or fragment.
    package static var invalidIssuer: Self { Self(rawValue: "invalid_issuer") }
    /// The discovery document could not be fetched (timeout, connection or TLS failure).
    package static var unreachable: Self { Self(rawValue: "discovery_unreachable") }
    /// The discovery endpoint answered with a status other than 200.
    package static var unexpectedStatus: Self { Self(rawValue: "discovery_unexpected_status") }
    /// The body is not a JSON object, is too large, or a member has the wrong type.
    package static var invalidDocument: Self { Self(rawValue: "invalid_discovery_document") }
    /// The document's `issuer` differs from the configured issuer (OpenID Connect Discovery §4.3).
    package static var issuerMismatch: Self { Self(rawValue: "issuer_mismatch") }
    /// A member the authorization-code flow needs is absent.
    package static var missingMetadata: Self { Self(rawValue: "missing_metadata") }
    /// An endpoint is not `https://` (or `http://` on a loopback host), or has a fragment.
    package static var insecureEndpoint: Self { Self(rawValue: "insecure_endpoint") }
    /// The issuer offers nothing AuthFlow can use: no `code` response type, no asymmetric id_token
    /// algorithm, or no static-secret client authentication.
    package static var unsupportedMetadata: Self { Self(rawValue: "unsupported_metadata") }
}
