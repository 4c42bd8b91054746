/// The keys of one provider entry that only some plugins read (Microsoft's `tenant`, Google's `hosted_domain`,
/// the passkey relying party's …), as written: the core knows none of them.
///
/// The loader fills the bag with every key the registry's plugins declare (``ProviderPreparing/optionKeys``), each
/// value with its form (a string, a list, something else) and source position; a plugin reads its own keys with
/// ``Reading``'s typed readers, each refusing a value of the wrong type with the loader's message at the value's
/// position. A provider whose plugin does not declare a key it sets is refused at the key's position.
package struct ProviderOptions: Sendable, Hashable {
    /// One scalar as written: its text after `${VAR}` expansion and what messages need to show it.
    package struct Scalar: Sendable, Hashable {
        /// The text after `${VAR}` expansion.
        package var text: String
        /// How a message quotes it: never a value that came from the environment.
        package var shown: String
        /// Whether it was written in quotes.
        package var quoted: Bool
        /// Its value when it is a plain YAML boolean.
        package var boolValue: Bool?
        /// Whether it held a `${VAR}` reference.
        package var interpolated: Bool

        /// A plain scalar written as `text`.
        package init(_ text: String, shown: String? = nil, quoted: Bool = false, boolValue: Bool? = nil) {
            self.text = text
            self.shown = shown ?? (quoted ? "\"\(text)\"" : text)
            self.quoted = quoted
            self.boolValue = boolValue
            self.interpolated = false
        }
    }

    /// One value: a scalar, a list of values or something else, where it was written.
    package struct Value: Sendable, Hashable {
        /// The value's form.
        package enum Form: Sendable, Hashable {
            case scalar(Scalar)
            case list([Value])
            /// A mapping or `null` in a list: never what an option reader expects.
            case other
        }

        package var form: Form
        /// How a wrong-type message names what was found (`a mapping`, `"text"`, …).
        package var found: String
        package var location: SourceLocation?

        package init(_ form: Form, found: String, location: SourceLocation? = nil) {
            self.form = form
            self.found = found
            self.location = location
        }

        /// A plain string.
        package static func string(_ text: String, at location: SourceLocation? = nil) -> Value {
            Value(.scalar(Scalar(text)), found: "\"\(text)\"", location: location)
        }

        /// A list of plain strings.
        package static func strings(_ texts: [String], at location: SourceLocation? = nil) -> Value {
            Value(.list(texts.map { .string($0, at: location) }), found: "a sequence", location: location)
        }

        /// A plain boolean.
        package static func bool(_ flag: Bool, at location: SourceLocation? = nil) -> Value {
            Value(.scalar(Scalar(String(flag), boolValue: flag)), found: String(flag), location: location)
        }
    }

    /// The options set, by key.
    package var values: [String: Value]
    /// `providers.NAME`, the path messages name a key by.
    package var path: String
    /// `server.public_url`, when set: the base of defaults such as the passkey relying party's.
    package var publicURL: String?

    /// Options of the provider at `path`; none set by default.
    package init(_ values: [String: Value] = [:], path: String = "providers", publicURL: String? = nil) {
        self.values = values
        self.path = path
        self.publicURL = publicURL
    }

    /// The keys set.
    package var keys: Set<String> { Set(values.keys) }

    /// The value of `key`, or `nil` when it is not set.
    package subscript(key: String) -> Value? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// The text of the scalar `key`, without checks (for reports of options a plugin already read).
    package func text(_ key: String) -> String? {
        guard case .scalar(let scalar)? = values[key]?.form else { return nil }
        return scalar.text
    }

    /// The texts of the list `key`, without checks (for reports of options a plugin already read).
    package func texts(_ key: String) -> [String]? {
        guard case .list(let items)? = values[key]?.form else { return nil }
        return items.compactMap { item in
            guard case .scalar(let scalar) = item.form else { return nil }
            return scalar.text
        }
    }

    /// Reads options, collecting every issue.
    package func reading() -> Reading { Reading(options: self) }
}
