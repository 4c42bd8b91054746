package import AuthFlow
import AuthFlowServer
internal import AuthFlowYAML

extension ConfigurationSection {
    /// `sandbox:`, read into ``SandboxSettings`` (the sandbox identity provider of `serve --sandbox` and `demo`).
    package static let sandbox = ConfigurationSection(
        key: "sandbox",
        read: { reader, node, owner in reader.readSandbox(node, owner: owner).map { ConfigurationSectionValue($0) } })
}

extension Configuration {
    /// `sandbox:`, when present.
    package var sandbox: SandboxSettings? {
        get { section(ConfigurationSection.sandbox.key, as: SandboxSettings.self) }
        set { setSection(ConfigurationSection.sandbox.key, newValue) }
    }
}

extension ConfigurationReader {
    /// `sandbox:`; absent keys keep their defaults.
    mutating func readSandbox(_ node: YAMLNode, owner: YAMLMark) -> SandboxSettings? {
        guard
            let section = fields(node, owner: owner, path: "sandbox", known: ["listen", "microsoft_tenants", "fapi2"])
        else {
            return nil
        }
        let listen = listenAddress(section.value("listen"), path: "sandbox.listen")
        var settings = SandboxSettings(
            listen: listen ?? ListenAddress(host: "127.0.0.1", port: 0),
            microsoftTenants: microsoftTenants(section.value("microsoft_tenants")))
        settings.fapi2 = bool(section.value("fapi2"), path: "sandbox.fapi2") ?? false
        return settings
    }

    /// `sandbox.microsoft_tenants`: distinct tenant GUIDs (lowercased), not the personal-accounts tenant, which the
    /// Microsoft emulator always knows.
    mutating func microsoftTenants(_ node: YAMLNode?) -> [String] {
        let path = "sandbox.microsoft_tenants"
        let personalAccounts = "9188040d-6c67-4c5b-b112-36a304b66dad"
        var tenants: [String] = []
        for item in listItems(node, path: path) {
            let id = item.value.lowercased()
            let groups = id.split(separator: "-", omittingEmptySubsequences: false)
            guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(\.isHexDigit) }) else {
                report(
                    .invalidValue,
                    "expected a tenant GUID (8-4-4-4-12 hexadecimal digits) in \(path), found \(item.shown)",
                    at: item.scalar.mark)
                continue
            }
            guard id != personalAccounts else {
                report(
                    .invalidValue,
                    "\(path) lists the personal-accounts tenant \(personalAccounts), which is always known",
                    at: item.scalar.mark)
                continue
            }
            guard !tenants.contains(id) else {
                report(.invalidValue, "\(path) lists \(item.shown) twice", at: item.scalar.mark)
                continue
            }
            tenants.append(id)
        }
        return tenants
    }
}
