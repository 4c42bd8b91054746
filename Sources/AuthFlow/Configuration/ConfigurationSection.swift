package import AuthFlowYAML

/// One top-level section of `providers.yaml` besides `providers:` (`server:`, `store:`, `sandbox:`), read by
/// the module that owns its settings and composed by ``ConfigurationLoader/init(sections:environment:mode:readFile:)``.
///
/// The core reads only `providers:`; a section's reader lives with its settings, so a new option of a
/// section changes only its module. The owning module adds a typed accessor on ``Configuration``.
package struct ConfigurationSection: Sendable {
    /// Reads the section's value; `nil` when it could not be read (the reader's issues say why).
    package typealias Read =
        @Sendable (_ reader: inout ConfigurationReader, _ node: YAMLNode, _ owner: YAMLMark) ->
        ConfigurationSectionValue?
    /// Checks the section against `providers:` once that is read (names a section lists must be configured).
    package typealias Check =
        @Sendable (_ reader: inout ConfigurationReader, _ node: YAMLNode, _ providers: YAMLNode?)
        -> Void

    /// The top-level key, as written in `providers.yaml`.
    package let key: String
    /// Keys of this section whose values are credentials: their source lines are redacted in issues.
    package let credentialKeys: Set<String>
    package let read: Read
    package let check: Check?
    /// The public URL and route prefix a value of this section gives every provider's default redirect URI.
    package let callbackBase: (@Sendable (ConfigurationSectionValue) -> (publicURL: String, pathPrefix: String)?)?

    /// Creates a section read by `read`.
    package init(
        key: String, credentialKeys: Set<String> = [], read: @escaping Read, check: Check? = nil,
        callbackBase: (@Sendable (ConfigurationSectionValue) -> (publicURL: String, pathPrefix: String)?)? = nil
    ) {
        self.key = key
        self.credentialKeys = credentialKeys
        self.read = read
        self.check = check
        self.callbackBase = callbackBase
    }
}

/// A section's typed value, kept by ``Configuration`` under the section's key.
package struct ConfigurationSectionValue: Hashable, @unchecked Sendable {
    // Sendable: built only from a `Sendable` value (see `init`).
    package let value: AnyHashable

    /// Wraps `value`.
    package init(_ value: some Hashable & Sendable) {
        self.value = AnyHashable(value)
    }
}
