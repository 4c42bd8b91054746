/// A scalar of a YAML document: its text exactly as written (after YAML unescaping), how it was
/// written, and where.
///
/// AuthFlowYAML reads the YAML 1.2 core schema: only plain (unquoted) scalars can be `null`,
/// booleans or numbers; a quoted or block scalar is always a string.
package struct YAMLScalar: Sendable, Hashable {
    /// The scalar's text.
    package let value: String
    /// `true` for any scalar that is not plain: single- or double-quoted, literal (`|`) or folded (`>`).
    package let isQuoted: Bool
    /// The explicit tag in its full form (`tag:yaml.org,2002:str`, or `!` for the non-specific tag);
    /// `nil` when the scalar has none.
    package let tag: String?
    /// Where the scalar starts.
    package let mark: YAMLMark

    /// Creates a scalar.
    package init(value: String, isQuoted: Bool = false, tag: String? = nil, mark: YAMLMark) {
        self.value = value
        self.isQuoted = isQuoted
        self.tag = tag
        self.mark = mark
    }
}

extension YAMLScalar {
    static let coreTagPrefix = "tag:yaml.org,2002:"

    /// `true` when the scalar can only be read as a string: it is quoted, or tagged `!!str` or `!`.
    package var isString: Bool {
        isQuoted || tag == Self.coreTagPrefix + "str" || tag == "!"
    }

    /// `true` when the scalar is `null` in the core schema: a plain `null`, `Null`, `NULL`, `~` or
    /// empty scalar, or one tagged `!!null`.
    package var isNull: Bool {
        if tag == Self.coreTagPrefix + "null" { return true }
        guard !isString, tag == nil else { return false }
        switch value {
        case "", "~", "null", "Null", "NULL": return true
        default: return false
        }
    }

    /// The boolean of a plain `true`/`True`/`TRUE`/`false`/`False`/`FALSE` (or a `!!bool` scalar);
    /// `nil` for anything else, including `yes`, `no`, `on` and `off`, which YAML 1.2 reads as strings.
    package var boolValue: Bool? {
        guard !isString, tag == nil || tag == Self.coreTagPrefix + "bool" else { return nil }
        switch value {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// The integer of a plain decimal (`-12`), octal (`0o17`) or hexadecimal (`0x1F`) scalar that fits
    /// in `Int64`; `nil` for anything else.
    package var int64Value: Int64? {
        guard !isString, tag == nil || tag == Self.coreTagPrefix + "int" else { return nil }
        return YAMLNumber.parseInteger(value)
    }

    /// The number of a plain integer or floating-point scalar (`1.5`, `-2e3`, `.inf`, `-.inf`, `.nan`);
    /// `nil` for anything else.
    package var doubleValue: Double? {
        guard !isString else { return nil }
        guard tag == nil || tag == Self.coreTagPrefix + "float" || tag == Self.coreTagPrefix + "int" else {
            return nil
        }
        if let integer = YAMLNumber.parseInteger(value) { return Double(integer) }
        return YAMLNumber.parseFloat(value)
    }
}
