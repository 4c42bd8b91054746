/// How a provider plugin supports one ``Capability``.
public enum CapabilitySupport: Sendable, Hashable {
    /// The provider's flow cannot work without it; configuration may not switch it off.
    case required
    /// Configuration may switch it on or off; `default` applies when `capabilities:` does not name it.
    case optional(default: Bool)
    /// The provider cannot do it; asking for it is a configuration error quoting `reason`.
    case unsupported(reason: String)

    /// `"required"`, `"optional"` or `"unsupported"`, as shown in the capability matrix.
    package var kind: String {
        switch self {
        case .required: "required"
        case .optional: "optional"
        case .unsupported: "unsupported"
        }
    }

    /// Whether the capability is on when configuration does not mention it.
    package var enabledByDefault: Bool {
        switch self {
        case .required: true
        case .optional(let value): value
        case .unsupported: false
        }
    }
}
