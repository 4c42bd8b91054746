package import AuthFlowYAML
internal import Foundation

/// Walks the YAML tree of a configuration, collecting every issue instead of stopping at the first.
///
/// The value helpers return `nil` both for "absent" and for "invalid (already reported)"; callers that
/// need a value check presence first. Package-wide, so each section's owning module reads its section with
/// the same helpers and messages.
package struct ConfigurationReader {
    /// A mapping whose unknown keys have been reported.
    package struct Fields {
        package let pairs: [(key: YAMLScalar, value: YAMLNode)]
        /// Where to report a missing key: the key that owns this mapping, or the mapping itself.
        package let owner: YAMLMark
        package let path: String

        package subscript(key: String) -> (key: YAMLScalar, value: YAMLNode)? {
            pairs.first { $0.key.value == key }
        }

        /// The value of `key` unless it is absent or `null`.
        package func value(_ key: String) -> YAMLNode? {
            guard let pair = self[key] else { return nil }
            if case .scalar(let scalar) = pair.value, scalar.isNull { return nil }
            return pair.value
        }

        package func path(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
    }

    /// Keys of `providers:` whose values are credentials: their source lines are redacted and, in sandbox mode,
    /// an unset variable or missing file leaves them `nil`. Each ``ConfigurationSection`` adds its own.
    static let credentialKeys: Set<String> = [
        "client_secret", "client_secret_file", "private_key_file", "team_id", "key_id",
    ]

    /// The configuration file's name, as issues show it.
    package let fileName: String
    let source: YAMLSourceText
    let loader: ConfigurationLoader
    let baseDirectory: String?
    package private(set) var issues: [ConfigurationIssue] = []
    /// The files secrets were read from.
    package var secretFiles: [SecretFile] = []
    /// Redacted source lines, each computed once and shared by every location on that line.
    private let lines: RedactedLines

    init(
        fileName: String, source: YAMLSourceText, loader: ConfigurationLoader, baseDirectory: String?,
        credentialKeys: Set<String> = ConfigurationReader.credentialKeys
    ) {
        self.fileName = fileName
        self.source = source
        self.loader = loader
        self.baseDirectory = baseDirectory
        lines = RedactedLines(source: source, credentialKeys: credentialKeys)
    }

    /// The configuration file's directory, against which a relative file name in it is resolved.
    package var configurationDirectory: String? { baseDirectory }

    /// Whether credentials may be absent (``ConfigurationLoader/Mode/sandbox``).
    package var isSandbox: Bool { loader.mode == .sandbox }

    // MARK: Issues and locations

    package func location(_ mark: YAMLMark) -> SourceLocation {
        SourceLocation(fileName: fileName, line: mark.line, column: mark.column, sourceLine: lines.line(mark.line))
    }

    /// Keeps the credential at `mark` (a list item) out of every source line shown from now on.
    package func redactCredential(at mark: YAMLMark) {
        lines.redact(line: mark.line, from: mark.column)
    }

    package mutating func report(_ code: ConfigurationIssue.Code, _ message: String, at mark: YAMLMark?) {
        issues.append(ConfigurationIssue(code: code, message: message, location: mark.map(location)))
    }

    /// `line` with everything after a credential-like key's colon replaced by `<redacted>`.
    ///
    /// A key is credential-like when it is a credential key, a near miss of one (`clinet_secret`), or
    /// names a secret, password, private or API key; this holds in flow mappings too. A value that is
    /// only a variable reference (`${GOOGLE_CLIENT_SECRET}`, quoted or not) is shown: it names where the
    /// secret comes from, not the secret. `${VAR:-default}` is redacted, since its default may be one.
    static func redacted(_ line: String, credentialKeys: Set<String> = ConfigurationReader.credentialKeys) -> String {
        let scalars = Array(line.unicodeScalars)
        var index = 0
        while index < scalars.count {
            guard isKeyScalar(scalars[index]) else {
                index += 1
                continue
            }
            let start = index
            while index < scalars.count, isKeyScalar(scalars[index]) { index += 1 }
            guard index < scalars.count, scalars[index] == ":" else { continue }
            let key = String(String.UnicodeScalarView(scalars[start..<index])).lowercased()
            let rest = scalars[(index + 1)...]
            if isCredentialLike(key, credentialKeys: credentialKeys), !rest.allSatisfy({ $0 == " " || $0 == "\t" }),
                !isOnlyAReference(rest)
            {
                return String(String.UnicodeScalarView(scalars[...index])) + " <redacted>"
            }
            index += 1
        }
        return line
    }

    /// Whether `value` (after a key's colon) is exactly `${NAME}`, optionally quoted, and spaces.
    static func isOnlyAReference(_ value: ArraySlice<Unicode.Scalar>) -> Bool {
        var text = Substring(String(String.UnicodeScalarView(value)))
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        if text.count >= 2, let quote = text.first, quote == "\"" || quote == "'", text.last == quote {
            text = text.dropFirst().dropLast()
        }
        guard text.hasPrefix("${"), text.hasSuffix("}") else { return false }
        let name = text.dropFirst(2).dropLast().unicodeScalars
        guard let first = name.first, ("A"..."Z").contains(first) || ("a"..."z").contains(first) || first == "_"
        else { return false }
        return name.allSatisfy {
            ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
    }

    private static func isKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_"
            || scalar == "-"
    }

    private static func isCredentialLike(_ key: String, credentialKeys: Set<String>) -> Bool {
        if ["secret", "password", "passwd", "private", "credential", "api_key", "apikey"].contains(where: {
            key.contains($0)
        }) {
            return true
        }
        let length = key.unicodeScalars.count
        return credentialKeys.contains {
            abs($0.utf8.count - length) <= 2 && EditDistance.distance(key, $0) <= 2
        }
    }

    // MARK: Structure

    /// The mapping in `node` with its keys checked against `known`; `null` reads as an empty mapping.
    package mutating func fields(_ node: YAMLNode, owner: YAMLMark, path: String, known: [String]) -> Fields? {
        let pairs: [(key: YAMLScalar, value: YAMLNode)]
        switch node {
        case .mapping(let mappingPairs, _):
            pairs = mappingPairs
        case .scalar(let scalar) where scalar.isNull:
            pairs = []
        default:
            report(.wrongType, "expected a mapping for \(path), found \(node.foundDescription)", at: node.mark)
            return nil
        }
        for (key, _) in pairs where !known.contains(key.value) {
            var message = "unknown key \(YAMLError.quote(key.value))" + (path.isEmpty ? "" : " in \(path)")
            if let suggestion = EditDistance.nearest(to: key.value, in: known) {
                message += "; did you mean \(YAMLError.quote(suggestion))?"
            } else {
                message += "; known keys: " + known.joined(separator: ", ")
            }
            report(.unknownKey, message, at: key.mark)
        }
        return Fields(pairs: pairs, owner: owner, path: path)
    }

    package mutating func reportMissing(_ key: String, in fields: Fields) {
        let place = fields.path.isEmpty ? "" : " in \(fields.path)"
        report(.missingKey, "missing required key \(YAMLError.quote(key))\(place)", at: fields.owner)
    }

    // MARK: Scalars

    /// A scalar's text after `${VAR}` expansion.
    package struct Text {
        package let value: String
        package let scalar: YAMLScalar
        package let fromEnvironment: Bool

        /// How a message quotes the value: never a value that came from the environment.
        package var shown: String {
            fromEnvironment
                ? "\(YAMLError.quote(scalar.value)) (as set in the environment)"
                : YAMLNode.scalar(scalar).foundDescription
        }
    }

    /// The expanded text of the scalar `node` at `path`; `nil` when absent, not a scalar, or unresolved
    /// (reported, except for credentials in sandbox mode).
    package mutating func text(_ node: YAMLNode?, path: String, credential: Bool = false, expected: String = "a string")
        -> Text?
    {
        guard let node else { return nil }
        guard case .scalar(let scalar) = node, !scalar.isNull else {
            report(.wrongType, "expected \(expected) for \(path), found \(node.foundDescription)", at: node.mark)
            return nil
        }
        switch EnvironmentInterpolation.expand(scalar.value, environment: loader.environment) {
        case .text(let value, let fromEnvironment):
            return Text(value: value, scalar: scalar, fromEnvironment: fromEnvironment)
        case .missing(let names):
            if credential && isSandbox { return nil }
            for name in names {
                report(
                    .undefinedVariable, "environment variable \(name) is not set (needed by \(path))", at: scalar.mark)
            }
            return nil
        case .malformed(let message):
            report(.undefinedVariable, "\(message) in \(path)", at: scalar.mark)
            return nil
        }
    }

    /// A non-empty string.
    package mutating func string(_ node: YAMLNode?, path: String, credential: Bool = false) -> String? {
        guard let text = text(node, path: path, credential: credential) else { return nil }
        guard !text.value.isEmpty else {
            report(
                .invalidValue,
                Self.emptyStringMessage(
                    path: path, interpolated: text.fromEnvironment || text.scalar.value.contains("${")),
                at: text.scalar.mark)
            return nil
        }
        return text.value
    }

    /// The message of an empty string where a non-empty one is expected.
    package static func emptyStringMessage(path: String, interpolated: Bool) -> String {
        "expected a non-empty string for \(path), found an empty one" + (interpolated ? " (after ${…} expansion)" : "")
    }

    /// The message of a scalar that is no boolean: `shown` as messages show it, `quoted` when it was written in
    /// quotes.
    package static func boolMessage(path: String, text: String, shown: String, quoted: Bool) -> String {
        var message = "expected a boolean (true or false) for \(path), found \(shown)"
        if !quoted, ["yes", "no", "on", "off", "y", "n"].contains(text.lowercased()) {
            message += "; YAML 1.2 reads yes/no/on/off as strings"
        } else if quoted, text == "true" || text == "false" {
            message += "; remove the quotes"
        }
        return message
    }

    /// `true` or `false`: a plain YAML boolean, or exactly `true`/`false` from `${VAR}`.
    package mutating func bool(_ node: YAMLNode?, path: String) -> Bool? {
        guard let node else { return nil }
        if case .scalar(let scalar) = node, let value = scalar.boolValue { return value }
        guard let text = text(node, path: path, expected: "a boolean") else { return nil }
        if text.fromEnvironment || text.scalar.value.contains("${") {
            if text.value == "true" { return true }
            if text.value == "false" { return false }
        }
        report(
            .wrongType, Self.boolMessage(path: path, text: text.value, shown: text.shown, quoted: text.scalar.isString),
            at: text.scalar.mark)
        return nil
    }

    /// A sequence of non-empty strings; `null` reads as absent.
    package mutating func stringList(_ node: YAMLNode?, path: String) -> [String]? {
        guard let node else { return nil }
        guard case .sequence(let items, _) = node else {
            report(
                .wrongType, "expected a list for \(path) (e.g. [a, b]), found \(node.foundDescription)", at: node.mark)
            return nil
        }
        var values: [String] = []
        for item in items {
            if let value = string(item, path: path) { values.append(value) }
        }
        return values
    }

    /// An `https://` URL (or `http://` on a loopback host) without credentials or fragment.
    package mutating func url(_ node: YAMLNode?, path: String, allowsQuery: Bool = true) -> String? {
        guard let text = text(node, path: path, expected: "a URL") else { return nil }
        guard checkURL(text, path: path, allowsQuery: allowsQuery) != nil else { return nil }
        return text.value
    }

    @discardableResult
    package mutating func checkURL(_ text: Text, path: String, allowsQuery: Bool = true) -> ConfigurationSyntax
        .URLParts?
    {
        let parts = ConfigurationSyntax.url(text.value)
        if let (code, message) = Self.urlProblem(parts, shown: text.shown, path: path, allowsQuery: allowsQuery) {
            report(code, message, at: text.scalar.mark)
            return nil
        }
        return parts
    }

    /// What is wrong with a URL (`parts`, `nil` when it does not parse) written at `path`: not an absolute
    /// `https://` URL (`http://` on a loopback host), credentials in it, a fragment or (unless `allowsQuery`) a
    /// query; `nil` when nothing is.
    package static func urlProblem(
        _ parts: ConfigurationSyntax.URLParts?, shown: String, path: String, allowsQuery: Bool
    ) -> (ConfigurationIssue.Code, String)? {
        guard let parts, parts.scheme == "https" || parts.scheme == "http" else {
            return (.invalidValue, "expected an absolute https:// URL for \(path), found \(shown)")
        }
        if parts.hasUserInfo { return (.invalidValue, "the URL of \(path) must not contain user:password@") }
        if parts.scheme == "http", !parts.isLoopback {
            return (
                .insecureURL,
                "expected an https:// URL for \(path) (http:// is allowed only on localhost, 127.0.0.0/8 and [::1]), "
                    + "found \(shown)"
            )
        }
        if parts.hasFragment || (!allowsQuery && parts.hasQuery) {
            let what = allowsQuery ? "a #fragment" : "a ?query or #fragment"
            return (.invalidValue, "the URL of \(path) must not have \(what), found \(shown)")
        }
        return nil
    }

    /// Reads the file named by the scalar `node` (a `*_file` key); `nil` when absent or unreadable
    /// (reported, except in sandbox mode, where every `*_file` key is a credential).
    package mutating func fileContents(_ node: YAMLNode?, path: String) -> (text: String, mark: YAMLMark, file: String)?
    {
        guard let name = string(node, path: path, credential: true), let node else { return nil }
        let resolved = name.hasPrefix("/") || baseDirectory == nil ? name : "\(baseDirectory ?? "")/\(name)"
        do {
            let contents = try loader.readFile(resolved)
            secretFiles.append(SecretFile(key: path, path: resolved))
            return (contents, node.mark, resolved)
        } catch {
            if isSandbox { return nil }
            report(
                .unreadableFile,
                "cannot read \(path) \(YAMLError.quote(resolved, limit: 4096)): \(ConfigurationLoader.reason(error))",
                at: node.mark)
            return nil
        }
    }
}

/// Source lines with credential values redacted, cached per line (a long line with many keys is
/// redacted once, and its text is shared by all of their locations).
final class RedactedLines {
    private let source: YAMLSourceText
    private let credentialKeys: Set<String>
    private var cache: [Int: String] = [:]

    init(source: YAMLSourceText, credentialKeys: Set<String>) {
        self.source = source
        self.credentialKeys = credentialKeys
    }

    /// Redacts line `number` from `column` (1-based, in characters) on: a credential written as a list item,
    /// which no key names on its line. A value that is only `${NAME}` stays shown.
    func redact(line number: Int, from column: Int) {
        guard let line = source.line(number) else { return }
        // A line a key already redacts (a flow list after `previous_secrets:`) stays redacted from that key on.
        let byKey = ConfigurationReader.redacted(line, credentialKeys: credentialKeys)
        guard byKey == line else {
            cache[number] = byKey
            return
        }
        let kept = line.prefix(max(0, column - 1))
        let rest = Array(line.dropFirst(kept.count).unicodeScalars)
        guard !ConfigurationReader.isOnlyAReference(rest[...]) else { return }
        cache[number] = String(kept) + "<redacted>"
    }

    func line(_ number: Int) -> String? {
        if let cached = cache[number] { return cached }
        guard let line = source.line(number) else { return nil }
        let redacted = ConfigurationReader.redacted(line, credentialKeys: credentialKeys)
        cache[number] = redacted
        return redacted
    }
}
