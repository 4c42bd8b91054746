internal import AuthFlowYAML

extension ProviderOptions {
    /// Typed readers of one provider's options, collecting every issue as the loader does.
    ///
    /// A reader returns `nil` both for "not set" and for "refused (an issue recorded)"; each refusal has the
    /// loader's code and message (`expected a boolean (true or false) for providers.NAME.KEY, found …`) at the
    /// value's position.
    package struct Reading {
        package let options: ProviderOptions
        /// The issues found so far.
        package private(set) var issues: [ConfigurationIssue] = []

        package init(options: ProviderOptions) { self.options = options }

        /// `providers.NAME.KEY`.
        package func path(_ key: String) -> String { "\(options.path).\(key)" }

        /// Where `key`'s value was written.
        package func location(of key: String) -> SourceLocation? { options[key]?.location }

        /// Records an issue.
        package mutating func report(_ code: ConfigurationIssue.Code, _ message: String, at location: SourceLocation?) {
            issues.append(ConfigurationIssue(code: code, message: message, location: location))
        }

        /// Records an `invalid_value` issue at `key`'s value.
        package mutating func refuse(_ key: String, _ message: String) {
            report(.invalidValue, message, at: location(of: key))
        }

        /// Throws the issues found, if any.
        ///
        /// - Throws: ``ConfigurationError`` with every issue found.
        package func check() throws(ConfigurationError) {
            guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        }

        /// How a message quotes `text`.
        package static func quote(_ text: String) -> String { YAMLError.quote(text) }

        /// The scalar `value` (at `path`), or `nil` with a `wrong_type` issue naming `expected`.
        mutating func scalar(_ value: Value, path: String, expected: String) -> Scalar? {
            guard case .scalar(let scalar) = value.form else {
                report(.wrongType, "expected \(expected) for \(path), found \(value.found)", at: value.location)
                return nil
            }
            return scalar
        }

        /// A non-empty string at `value`.
        mutating func string(_ value: Value, path: String) -> String? {
            guard let scalar = scalar(value, path: path, expected: "a string") else { return nil }
            guard !scalar.text.isEmpty else {
                report(
                    .invalidValue,
                    ConfigurationReader.emptyStringMessage(path: path, interpolated: scalar.interpolated),
                    at: value.location)
                return nil
            }
            return scalar.text
        }

        /// `key`: a non-empty string.
        package mutating func string(_ key: String) -> String? {
            guard let value = options[key] else { return nil }
            return string(value, path: path(key))
        }

        /// `key`: a list of non-empty strings, each with where it was written; `nil` when not set or not a list.
        package mutating func stringItems(_ key: String) -> [(text: String, location: SourceLocation?)]? {
            guard let value = options[key] else { return nil }
            guard case .list(let items) = value.form else {
                report(
                    .wrongType, "expected a list for \(path(key)) (e.g. [a, b]), found \(value.found)",
                    at: value.location)
                return nil
            }
            var texts: [(text: String, location: SourceLocation?)] = []
            for item in items {
                if let text = string(item, path: path(key)) { texts.append((text, item.location)) }
            }
            return texts
        }

        /// `key`: a list of non-empty strings (an entry that is none is reported and left out).
        package mutating func strings(_ key: String) -> [String]? {
            stringItems(key)?.map(\.text)
        }

        /// `key`: `true` or `false`, a plain YAML boolean or exactly `true`/`false` from `${VAR}`.
        package mutating func bool(_ key: String) -> Bool? {
            guard let value = options[key] else { return nil }
            guard let scalar = scalar(value, path: path(key), expected: "a boolean") else { return nil }
            if let flag = scalar.boolValue { return flag }
            if scalar.interpolated, scalar.text == "true" || scalar.text == "false" { return scalar.text == "true" }
            report(
                .wrongType,
                ConfigurationReader.boolMessage(
                    path: path(key), text: scalar.text, shown: scalar.shown, quoted: scalar.quoted),
                at: value.location)
            return nil
        }

        /// `key`: a number.
        package mutating func number(_ key: String) -> Double? {
            guard let value = options[key] else { return nil }
            guard let scalar = scalar(value, path: path(key), expected: "a number") else { return nil }
            guard !scalar.quoted, let number = Double(scalar.text), number.isFinite else {
                report(.wrongType, "expected a number for \(path(key)), found \(scalar.shown)", at: value.location)
                return nil
            }
            return number
        }

        /// `key`: an `https://` URL (or `http://` on a loopback host) without credentials or fragment (nor query,
        /// unless `allowsQuery`).
        package mutating func url(_ key: String, allowsQuery: Bool = true) -> String? {
            guard let value = options[key] else { return nil }
            guard let scalar = scalar(value, path: path(key), expected: "a URL") else { return nil }
            let parts = ConfigurationSyntax.url(scalar.text)
            if let (code, message) = ConfigurationReader.urlProblem(
                parts, shown: scalar.shown, path: path(key), allowsQuery: allowsQuery)
            {
                report(code, message, at: value.location)
                return nil
            }
            return scalar.text
        }

        /// `key`: one of `Choice`'s raw values.
        package mutating func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, _: Choice.Type)
            -> Choice? where Choice.RawValue == String
        {
            guard let text = string(key) else { return nil }
            if let value = Choice(rawValue: text) { return value }
            let allowed = Choice.allCases.map(\.rawValue).joined(separator: " or ")
            refuse(key, "expected \(allowed) for \(path(key)), found \(Self.quote(text))")
            return nil
        }
    }
}

extension ConfigurationReader {
    /// The provider options of one provider section: every key the loader's plugins declare
    /// (``ConfigurationLoader/providerOptionKeys``), as written.
    mutating func readProviderOptions(_ section: Fields, publicURL: String?) -> ProviderOptions {
        var options = ProviderOptions(path: section.path, publicURL: publicURL)
        for key in loader.providerOptionKeys {
            guard let node = section.value(key), let value = optionValue(node, path: section.path(key)) else {
                continue
            }
            options[key] = value
        }
        return options
    }

    /// `node` as an option value; `nil` when a `${VAR}` in it is not set (reported).
    private mutating func optionValue(_ node: YAMLNode, path: String) -> ProviderOptions.Value? {
        let found = node.foundDescription
        switch node {
        case .scalar(let scalar) where !scalar.isNull:
            guard let text = text(node, path: path) else { return nil }
            var value = ProviderOptions.Scalar(
                text.value, shown: text.shown, quoted: scalar.isString, boolValue: scalar.boolValue)
            value.interpolated = text.fromEnvironment || scalar.value.contains("${")
            return ProviderOptions.Value(.scalar(value), found: found, location: location(node.mark))
        case .sequence(let items, _):
            var values: [ProviderOptions.Value] = []
            for item in items {
                guard let value = optionValue(item, path: path) else { return nil }
                values.append(value)
            }
            return ProviderOptions.Value(.list(values), found: found, location: location(node.mark))
        default:
            return ProviderOptions.Value(.other, found: found, location: location(node.mark))
        }
    }
}
