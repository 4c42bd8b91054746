package import AuthFlow

/// One piece of hardening advice for a provider, worked out from its resolved configuration.
///
/// Each advisory says what was found and what to change in `providers.yaml`; ``text`` is the one-line form
/// used in the JSON contract's `advisories` (e.g. `google: OIDC available but off — identity trusted over TLS
/// only; set capabilities.oidc: true (one round trip fewer)`).
package struct Advisory: Sendable, Hashable {
    /// A stable identifier of the rule that produced an advisory.
    package typealias Code = ErrorCode<Advisory>

    /// Whether following the advice hardens the sign-in or the advisory is a note to keep in mind.
    package enum Severity: String, Sendable, Hashable {
        /// A change in `providers.yaml` makes the sign-in stronger.
        case hardening
        /// Information about how the provider is used, with what to keep configured.
        case note
    }

    /// A run of text in ``Advisory/change``; YAML to write is marked so renderers can set it as code.
    package enum Fragment: Sendable, Hashable {
        /// Prose.
        case text(String)
        /// A YAML key, value or `key: value` to write in `providers.yaml`.
        case yaml(String)

        /// The fragment's characters.
        package var string: String {
            switch self {
            case .text(let text), .yaml(let text): text
            }
        }
    }

    /// The provider's name in configuration.
    package let provider: String
    /// Which rule found it.
    package let code: Code
    /// Hardening advice or a note.
    package let severity: Severity
    /// The capability concerned, for `Code.capabilityOff`.
    package let capability: Capability?
    /// What was found, e.g. `OIDC available but off — identity trusted over TLS only`.
    package let finding: String
    /// What to change in `providers.yaml`, e.g. `set capabilities.oidc: true (one round trip fewer)`.
    package let change: [Fragment]

    /// Creates an advisory.
    package init(
        provider: String, code: Code, severity: Severity, capability: Capability? = nil, finding: String,
        change: [Fragment]
    ) {
        self.provider = provider
        self.code = code
        self.severity = severity
        self.capability = capability
        self.finding = finding
        self.change = change
    }

    /// ``change`` as plain text.
    package var changeText: String { change.map(\.string).joined() }

    /// `provider: finding; change`, the form listed under `advisories` in the JSON.
    package var text: String { "\(provider): \(finding); \(changeText)" }
}

extension ErrorCode where Domain == Advisory {
    /// An optional capability that hardens the sign-in is switched off (see ``Advisory/capability``).
    package static var capabilityOff: Self { Self(rawValue: "capability_off") }
    /// The client sends a static secret where the provider also allows `private_key_jwt`.
    package static var clientAuthentication: Self { Self(rawValue: "client_authentication") }
    /// The client secret is a signed JWT; its lifetime and what to keep configured.
    package static var clientSecretLifetime: Self { Self(rawValue: "client_secret_lifetime") }
    /// Tokens are stored but the provider will issue no refresh token: a missing scope (X's
    /// `offline.access`), or Google without `access_type=offline`.
    package static var noRefreshToken: Self { Self(rawValue: "no_refresh_token") }
}
