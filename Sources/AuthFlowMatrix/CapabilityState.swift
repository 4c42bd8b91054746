package import AuthFlow

/// How one provider supports one `Capability`, and whether it is in effect.
package struct CapabilityState: Sendable, Hashable {
    /// The capability.
    package let capability: Capability
    /// The plugin's declaration for these settings (`required`, `optional(default:)`, `unsupported(reason:)`).
    package let support: CapabilitySupport
    /// Whether the capability is on in the resolved configuration.
    package let enabled: Bool

    /// Creates a state.
    package init(capability: Capability, support: CapabilitySupport, enabled: Bool) {
        self.capability = capability
        self.support = support
        self.enabled = enabled
    }

    /// The plugin's reason when the capability is unsupported, `nil` otherwise.
    package var reason: String? {
        if case .unsupported(let reason) = support { return reason }
        return nil
    }

    /// Whether configuration could switch it on but has not.
    package var isAvailableButOff: Bool {
        if case .optional = support { return !enabled }
        return false
    }

    /// A short label: `on (required)`, `on (optional)`, `off (optional)` or `unsupported`.
    package var label: String {
        switch support {
        case .required: enabled ? "on (required)" : "off (required)"
        case .optional: enabled ? "on (optional)" : "off (optional)"
        case .unsupported: "unsupported"
        }
    }
}
