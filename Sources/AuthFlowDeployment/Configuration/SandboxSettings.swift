package import AuthFlow

/// The `sandbox:` section, used by `authflow serve --sandbox` and `authflow demo`.
package struct SandboxSettings: Sendable, Hashable {
    /// Where the sandbox identity provider listens; default `127.0.0.1:0` (any free port).
    package let listen: ListenAddress
    /// `sandbox.microsoft_tenants`: the tenant GUIDs (lowercased) the Microsoft emulator knows besides personal
    /// accounts; empty means its two default tenants.
    package let microsoftTenants: [String]

    /// Creates sandbox settings.
    package init(listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 0), microsoftTenants: [String] = []) {
        self.listen = listen
        self.microsoftTenants = microsoftTenants
    }
}
