public import AuthFlow

/// The `sandbox:` section, used by `authflow serve --sandbox` and `authflow demo`.
public struct SandboxSettings: Sendable, Hashable {
    /// Where the sandbox identity provider listens; default `127.0.0.1:0` (any free port).
    public let listen: ListenAddress
    /// `sandbox.microsoft_tenants`: the tenant GUIDs (lowercased) the Microsoft emulator knows besides personal
    /// accounts; empty means its two default tenants.
    public let microsoftTenants: [String]

    /// Creates sandbox settings.
    public init(listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 0), microsoftTenants: [String] = []) {
        self.listen = listen
        self.microsoftTenants = microsoftTenants
    }
}
