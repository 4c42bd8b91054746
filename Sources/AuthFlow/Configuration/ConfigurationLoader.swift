internal import AuthFlowYAML
internal import Foundation

/// Reads `providers.yaml`: parses it, interpolates `${VAR}` and `*_file` keys, checks every key, and
/// reports all problems at once.
///
/// The core reads `providers:`; every other top-level section is read by the configuration section its
/// owning module supplies, all in one run, so every problem of every section is reported together. The
/// standard sections (`server:`, `store:`, `sandbox:`) come with `import AuthFlowDeployment`, whose
/// `ConfigurationLoader(environment:)` reads them all.
public struct ConfigurationLoader: Sendable {
    /// How strict credentials are.
    public enum Mode: Sendable, Hashable {
        /// Every `${VAR}` must be set and every `*_file` readable.
        case normal
        /// For `serve --sandbox` / `demo`: credentials are generated, so an unset `${VAR}` or a missing
        /// file in a credential key (`client_secret`, `client_secret_file`, `private_key_file`,
        /// `team_id`, `key_id`, `server.secret`), or an absent `server.secret`, leaves the value `nil`
        /// instead of being an error. Everything else is checked as in `normal`.
        case sandbox
    }

    /// The largest configuration, secret or key file read, in bytes (1 MiB).
    package static let maxFileBytes = 1 << 20

    /// The top-level sections read besides `providers:`, in reading order; any other top-level key is
    /// reported as unknown.
    package let sections: [ConfigurationSection]
    /// The variables `${VAR}` reads.
    package let environment: [String: String]
    /// The strictness.
    package let mode: Mode
    /// Provider types that sign in without an OAuth client, so `client_id` is not required (the standard loader
    /// of AuthFlowDeployment takes them from the standard registry: ``ProviderRegistry/typesWithoutClient``).
    package var typesWithoutClient: Set<String> = []
    /// The provider option keys the plugins declare (``ProviderPreparing/optionKeys``), sorted: a provider entry
    /// may set them besides the keys every provider takes, and they are read into its ``ProviderOptions``. The
    /// standard loader of AuthFlowDeployment takes them from the standard registry
    /// (``ProviderRegistry/optionKeys``).
    package var providerOptionKeys: [String] = []
    let readFile: @Sendable (String) throws -> String

    /// Creates a loader of `providers:` and `sections`.
    /// - Parameters:
    ///   - sections: the other top-level sections to read (`[]` reads `providers:` alone).
    ///   - environment: what `${VAR}` reads (pass `ProcessInfo.processInfo.environment` in production).
    ///   - mode: ``Mode/normal`` or ``Mode/sandbox``.
    ///   - readFile: reads the configuration and `*_file` keys; it may throw anything (the error is
    ///     summarised, never printed with the file's contents).
    package init(
        sections: [ConfigurationSection], environment: [String: String], mode: Mode = .normal,
        readFile: @escaping @Sendable (String) throws -> String = ConfigurationLoader.readFileFromDisk
    ) {
        self.sections = sections
        self.environment = environment
        self.mode = mode
        self.readFile = readFile
    }

    /// Reads and loads the file at `path`; relative `*_file` paths in it are relative to its directory.
    /// - Throws: ``ConfigurationError`` with every problem found.
    public func load(path: String) throws(ConfigurationError) -> Configuration {
        let text: String
        do {
            text = try readFile(path)
        } catch {
            throw ConfigurationError(issues: [
                ConfigurationIssue(
                    code: .unreadableFile,
                    message:
                        "cannot read configuration file \(YAMLError.quote(path, limit: 4096)): \(Self.reason(error))",
                    location: nil)
            ])
        }
        return try load(yaml: text, fileName: path)
    }

    /// Loads configuration text; `fileName` names it in errors, and its directory (if it has one) is the
    /// base of relative `*_file` paths.
    /// - Throws: ``ConfigurationError`` with every problem found.
    public func load(yaml: String, fileName: String) throws(ConfigurationError) -> Configuration {
        var reader = ConfigurationReader(
            fileName: fileName, source: YAMLSourceText(yaml), loader: self,
            baseDirectory: Self.directory(of: fileName),
            credentialKeys: sections.reduce(ConfigurationReader.credentialKeys) { $0.union($1.credentialKeys) })
        let root: YAMLNode
        do {
            root = try YAMLParser.parse(yaml, fileName: fileName)
        } catch {
            let code: ConfigurationIssue.Code = error.code == .duplicateKey ? .duplicateKey : .invalidYAML
            reader.report(code, error.mark == nil ? "\(fileName): \(error.message)" : error.message, at: error.mark)
            throw ConfigurationError(issues: reader.issues)
        }
        let configuration = reader.readConfiguration(root, sections: sections)
        guard reader.issues.isEmpty, let configuration else {
            throw ConfigurationError(issues: reader.issues, readable: configuration)
        }
        return configuration
    }

    /// Reads a UTF-8 file of at most 1 MiB. This is the default `readFile`.
    /// - Throws: an error whose description is a short reason (`no such file`, `permission denied`,
    ///   `larger than 1048576 bytes`, `not UTF-8`), never the file's contents.
    @Sendable @usableFromInline package static func readFileFromDisk(_ path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { throw FileReadFailure(reason: "no such file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FileReadFailure(reason: "permission denied")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            throw FileReadFailure(reason: "not a readable file")
        }
        guard data.count <= maxFileBytes else { throw FileReadFailure(reason: "larger than \(maxFileBytes) bytes") }
        guard let text = String(data: data, encoding: .utf8) else { throw FileReadFailure(reason: "not UTF-8") }
        return text
    }

    /// A short reason for a `readFile` failure that cannot leak contents.
    static func reason(_ error: any Error) -> String {
        if let failure = error as? FileReadFailure { return failure.reason }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file"
            case .fileReadNoPermission: return "permission denied"
            default: break
            }
        }
        return "read failed"
    }

    static func directory(of fileName: String) -> String? {
        guard let slash = fileName.lastIndex(of: "/") else { return nil }
        return slash == fileName.startIndex ? "/" : String(fileName[..<slash])
    }
}

/// Why the default file reader failed.
struct FileReadFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
