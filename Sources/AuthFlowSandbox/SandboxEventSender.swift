/// One event the sandbox can send to an app on behalf of a provider, through a loopback admin endpoint
/// (`POST /_sandbox/…`): what a demo page offers as a button.
public struct SandboxEventSender: Sendable, Hashable {
    /// A short label, e.g. `"RISC sessions-revoked"`.
    public let label: String
    /// The sandbox admin path to POST to, e.g. `"/_sandbox/google/risc"`.
    public let path: String
    /// The app's receiving path after `/auth/{name}/`, e.g. `"events"`; sent as the `to` field.
    public let receiver: String
    /// The form field that names the user (`sub` or `user_id`).
    public let subjectField: String
    /// Further form fields, e.g. `type` and `reason`.
    public let fields: [String: String]

    /// Creates a sender description.
    public init(label: String, path: String, receiver: String, subjectField: String, fields: [String: String] = [:]) {
        self.label = label
        self.path = path
        self.receiver = receiver
        self.subjectField = subjectField
        self.fields = fields
    }

    /// The events the sandbox sends for `provider` (none for X, Microsoft and GitHub).
    public static func all(for provider: SandboxProvider) -> [SandboxEventSender] {
        switch provider {
        case .apple:
            ["consent-revoked", "account-delete", "email-disabled", "email-enabled"].map { type in
                SandboxEventSender(
                    label: "Apple \(type)", path: "/_sandbox/apple/notify", receiver: "notifications",
                    subjectField: "sub", fields: ["type": type])
            }
        case .google:
            [
                ("sessions-revoked", nil), ("tokens-revoked", nil), ("account-disabled", "hijacking"),
                ("account-enabled", nil),
            ].map { type, reason in
                SandboxEventSender(
                    label: "RISC \(type)" + (reason.map { " (\($0))" } ?? ""), path: "/_sandbox/google/risc",
                    receiver: "events", subjectField: "sub",
                    fields: reason.map { ["type": type, "reason": $0] } ?? ["type": type])
            }
        case .facebook:
            [
                SandboxEventSender(
                    label: "Facebook data deletion", path: "/_sandbox/facebook/data-deletion",
                    receiver: "data-deletion", subjectField: "user_id"),
                SandboxEventSender(
                    label: "Facebook deauthorize", path: "/_sandbox/facebook/deauthorize", receiver: "deauthorize",
                    subjectField: "user_id"),
            ]
        case .x, .microsoft, .github:
            []
        }
    }
}
