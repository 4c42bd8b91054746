import AuthFlow
package import AuthFlowServer

/// The `sandbox:` section, used by `authflow serve --sandbox` and `authflow demo`.
package struct SandboxSettings: Sendable, Hashable {
    /// Where the sandbox identity provider listens; default `127.0.0.1:0` (any free port).
    package let listen: ListenAddress
    /// `sandbox.microsoft_tenants`: the tenant GUIDs (lowercased) the Microsoft emulator knows besides personal
    /// accounts; empty means its two default tenants.
    package let microsoftTenants: [String]
    /// `sandbox.fapi2`: the OpenID issuer (the Google emulator) runs its strict FAPI 2.0 mode, and `type: oidc`
    /// providers sign in to it with a generated `private_key_jwt` client.
    package var fapi2 = false

    /// Creates sandbox settings.
    package init(listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 0), microsoftTenants: [String] = []) {
        self.listen = listen
        self.microsoftTenants = microsoftTenants
    }
}
