/// One event the sandbox can send to an app on behalf of a provider, through a loopback admin endpoint
/// (`POST /_sandbox/…`): what a demo page offers as a button.
package struct SandboxEventSender: Sendable, Hashable {
    /// A short label, e.g. `"RISC sessions-revoked"`.
    package let label: String
    /// The sandbox admin path to POST to, e.g. `"/_sandbox/google/risc"`.
    package let path: String
    /// The app's receiving path after `/auth/{name}/`, e.g. `"events"`; sent as the `to` field.
    package let receiver: String
    /// The form field that names the user (`sub` or `user_id`).
    package let subjectField: String
    /// Further form fields, e.g. `type` and `reason`.
    package let fields: [String: String]

    /// Creates a sender description.
    package init(label: String, path: String, receiver: String, subjectField: String, fields: [String: String] = [:]) {
        self.label = label
        self.path = path
        self.receiver = receiver
        self.subjectField = subjectField
        self.fields = fields
    }

    /// The events the sandbox sends for `provider` (none for X, Microsoft and GitHub).
    package static func all(for provider: SandboxProvider) -> [SandboxEventSender] {
        provider.emulator.events
    }
}
