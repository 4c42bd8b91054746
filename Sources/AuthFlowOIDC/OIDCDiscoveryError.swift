/// Why an OpenID Connect issuer's discovery document could not be used.
///
/// Messages say what was expected and what was found; they never contain a secret or a token (discovery
/// documents hold neither). ``issuer`` and ``field`` say where the problem is.
public struct OIDCDiscoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable snake_case error code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The snake_case code, e.g. `"issuer_mismatch"`.
        public let rawValue: String

        /// Wraps a code string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code string.
        public var description: String { rawValue }

        /// The configured issuer is not an absolute `https://` URL (or `http://` on a loopback host) without
        /// query or fragment.
        public static let invalidIssuer = Code(rawValue: "invalid_issuer")
        /// The discovery document could not be fetched (timeout, connection or TLS failure).
        public static let unreachable = Code(rawValue: "discovery_unreachable")
        /// The discovery endpoint answered with a status other than 200.
        public static let unexpectedStatus = Code(rawValue: "discovery_unexpected_status")
        /// The body is not a JSON object, is too large, or a member has the wrong type.
        public static let invalidDocument = Code(rawValue: "invalid_discovery_document")
        /// The document's `issuer` differs from the configured issuer (OpenID Connect Discovery §4.3).
        public static let issuerMismatch = Code(rawValue: "issuer_mismatch")
        /// A member the authorization-code flow needs is absent.
        public static let missingMetadata = Code(rawValue: "missing_metadata")
        /// An endpoint is not `https://` (or `http://` on a loopback host), or has a fragment.
        public static let insecureEndpoint = Code(rawValue: "insecure_endpoint")
        /// The issuer offers nothing AuthFlow can use: no `code` response type, no asymmetric id_token
        /// algorithm, or no static-secret client authentication.
        public static let unsupportedMetadata = Code(rawValue: "unsupported_metadata")
    }

    /// The stable error code.
    public let code: Code
    /// What was expected and what was found; safe to show and log.
    public let message: String
    /// The issuer whose discovery failed.
    public var issuer: String?
    /// The discovery member involved (e.g. `token_endpoint`), when one is.
    public var field: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, issuer: String? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.issuer = issuer
        self.field = field
    }

    /// `code: message`, safe to log.
    public var description: String { "\(code.rawValue): \(message)" }
}
