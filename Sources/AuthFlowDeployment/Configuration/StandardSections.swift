public import AuthFlow

extension ConfigurationSection {
    /// The sections `authflow serve` reads besides `providers:`, in reading order: `server:`, `sandbox:` and
    /// `store:`.
    package static let standard: [ConfigurationSection] = [.server, .sandbox, .store]
}

extension ConfigurationLoader {
    /// Creates a loader of the whole `providers.yaml` schema: `providers:` and the standard
    /// sections.
    /// - Parameters:
    ///   - environment: what `${VAR}` reads (pass `ProcessInfo.processInfo.environment` in production).
    ///   - mode: `.normal` or `.sandbox` (see `ConfigurationLoader.Mode`).
    ///   - readFile: reads the configuration and `*_file` keys; it may throw anything (the error is
    ///     summarised, never printed with the file's contents).
    public init(
        environment: [String: String], mode: Mode = .normal,
        readFile: @escaping @Sendable (String) throws -> String = ConfigurationLoader.readFileFromDisk
    ) {
        self.init(sections: ConfigurationSection.standard, environment: environment, mode: mode, readFile: readFile)
        typesWithoutClient = ProviderRegistry.standard.typesWithoutClient
        providerOptionKeys = ProviderRegistry.standard.optionKeys
    }
}

extension Configuration {
    /// Creates a configuration of every standard section.
    package init(
        server: ServerSettings? = nil, sandbox: SandboxSettings? = nil, store: StoreSettings = StoreSettings(),
        providers: [ProviderSettings]
    ) {
        self.init(server: server, providers: providers)
        self.sandbox = sandbox
        self.store = store
    }
}
