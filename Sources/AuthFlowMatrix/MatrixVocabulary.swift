import AuthFlow

/// Words shared by the text, Markdown and HTML renderings, so the three read alike.
enum MatrixVocabulary {
    static let title = "AuthFlow capability matrix"

    static func protocolLabel(_ value: SignInProtocol) -> String {
        switch value {
        case .oauth2: "OAuth 2.0"
        case .oidc: "OIDC"
        case .webAuthn: "WebAuthn"
        }
    }

    static func capabilityHeading(_ capability: Capability) -> String {
        switch capability {
        case .pkce: "PKCE"
        case .oidc: "OIDC"
        case .jwtClientAuth: "JWT client auth"
        case .formPost: "form_post"
        }
    }

    /// The legend under the text and Markdown tables, as (term, meaning) pairs.
    static let textLegend: [(String, String)] = [
        ("id_token", "identity from an id_token AuthFlow verifies itself (signature, issuer, audience, expiry, nonce)"),
        ("userinfo", "identity from the provider's userinfo endpoint, trusted because it came over TLS"),
        ("GET / POST", "the callback arrives as a GET with a query string, or as a cross-site form POST (form_post)"),
        ("Round trips", "calls to the provider per sign-in (token exchange, userinfo), with the JWKS cached"),
        ("on / off", "whether the capability is in effect in this configuration"),
        (
            "required / optional",
            "what the provider's plugin declares; switch optional ones under capabilities: in the YAML"
        ),
        ("Native apps", "ID tokens from iOS/Android apps accepted at POST /auth/NAME/native (set native_clients)"),
    ]

    /// The legend of a table of `rows`: ``textLegend``, with the assertion term after the userinfo one when a row
    /// is a passkey provider.
    static func legend(for rows: [MatrixRow]) -> [(String, String)] {
        guard rows.contains(where: { $0.signInProtocol == .webAuthn }) else { return textLegend }
        var legend = textLegend
        legend.insert(
            ("assertion", "identity from a WebAuthn assertion AuthFlow verifies itself against the stored passkey"),
            at: 2)
        return legend
    }

    static let noAdvisories = "none (every available hardening is on)"
}
