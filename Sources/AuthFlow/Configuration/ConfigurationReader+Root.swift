package import AuthFlowYAML

extension ConfigurationReader {
    /// The whole configuration: `providers:` and `sections` (in their order, before `providers:`), or `nil`
    /// when something could not be read (the issues say what). Any other top-level key is reported, with the
    /// nearest known key.
    mutating func readConfiguration(_ root: YAMLNode, sections: [ConfigurationSection]) -> Configuration? {
        let start = YAMLMark(line: 1, column: 1)
        let rootKeys = sections.map(\.key) + ["providers"]
        // A section no loaded module reads is not checked, so its credential keys are unknown here: what
        // follows its key on the key's line (a flow mapping such as `{postgres_url: …}`) is never shown.
        for (key, value) in root.mapping ?? [] where !rootKeys.contains(key.value) {
            redactCredential(at: value.mark)
        }
        guard let top = fields(root, owner: root.mark, path: "", known: rootKeys) else { return nil }
        var values: [String: ConfigurationSectionValue] = [:]
        var callbackBase: (publicURL: String, pathPrefix: String)?
        for section in sections {
            guard let pair = top[section.key], let value = section.read(&self, pair.value, pair.key.mark) else {
                continue
            }
            values[section.key] = value
            if let base = section.callbackBase?(value) { callbackBase = base }
        }
        var providers: [ProviderSettings] = []
        if let pair = top["providers"] {
            providers = readProviders(
                pair.value, owner: pair.key.mark, callbackBase: callbackBase.map { $0.publicURL + $0.pathPrefix },
                publicURL: callbackBase?.publicURL)
        } else {
            report(.missingKey, "missing required key \"providers\"", at: root.mapping == nil ? start : root.mark)
        }
        for section in sections {
            guard let check = section.check, let pair = top[section.key] else { continue }
            check(&self, pair.value, top["providers"]?.value)
        }
        var configuration = Configuration(providers: providers)
        configuration.publicURL = callbackBase?.publicURL
        configuration.pathPrefix = callbackBase?.pathPrefix ?? Configuration.defaultPathPrefix
        configuration.sections = values
        configuration.secretFiles = secretFiles
        return configuration
    }

    /// The non-empty scalar items of the list `node` at `path`; a non-list or an empty item is reported.
    package mutating func listItems(_ node: YAMLNode?, path: String) -> [Text] {
        guard let node, !node.isNullScalar else { return [] }
        guard case .sequence(let items, _) = node else {
            report(
                .wrongType, "expected a list for \(path) (e.g. [a, b]), found \(node.foundDescription)", at: node.mark)
            return []
        }
        var texts: [Text] = []
        for item in items {
            guard let text = text(item, path: path) else { continue }
            if text.value.isEmpty {
                report(
                    .invalidValue, "expected a non-empty string in \(path), found an empty one", at: text.scalar.mark)
            } else {
                texts.append(text)
            }
        }
        return texts
    }
}

extension YAMLNode {
    /// Whether this is a `null` scalar (a key written with no value).
    package var isNullScalar: Bool {
        if case .scalar(let scalar) = self { return scalar.isNull }
        return false
    }
}
