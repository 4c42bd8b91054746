/// A node of a parsed YAML document. Every node knows where it starts in the source.
///
/// Aliases are expanded when the document is parsed (within ``YAMLLimits``), so the tree holds only
/// scalars, sequences and mappings. Mapping keys are scalars, unique, and kept in source order.
package indirect enum YAMLNode: Sendable {
    /// A scalar.
    case scalar(YAMLScalar)
    /// A sequence and where it starts.
    case sequence([YAMLNode], YAMLMark)
    /// A mapping (pairs in source order) and where it starts.
    case mapping([(key: YAMLScalar, value: YAMLNode)], YAMLMark)
}

extension YAMLNode {
    /// Where the node starts.
    package var mark: YAMLMark {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .sequence(_, let mark): mark
        case .mapping(_, let mark): mark
        }
    }

    /// The scalar, when the node is one.
    package var scalar: YAMLScalar? {
        if case .scalar(let scalar) = self { return scalar }
        return nil
    }

    /// The items, when the node is a sequence.
    package var sequence: [YAMLNode]? {
        if case .sequence(let items, _) = self { return items }
        return nil
    }

    /// The pairs, when the node is a mapping.
    package var mapping: [(key: YAMLScalar, value: YAMLNode)]? {
        if case .mapping(let pairs, _) = self { return pairs }
        return nil
    }

    /// The value of the first pair whose key is `key`, when the node is a mapping.
    package subscript(key: String) -> YAMLNode? {
        mapping?.first(where: { $0.key.value == key })?.value
    }

    /// How an error message names what was found: `null`, `"text"`, `the string "true"`, `a sequence`,
    /// `a mapping`.
    package var foundDescription: String {
        switch self {
        case .sequence: return "a sequence"
        case .mapping: return "a mapping"
        case .scalar(let scalar):
            if scalar.isNull { return "null" }
            let quoted = YAMLError.quote(scalar.value)
            let plain = YAMLScalar(value: scalar.value, mark: scalar.mark)
            let looksTyped = plain.isNull || plain.boolValue != nil || plain.doubleValue != nil
            if scalar.isString { return looksTyped ? "the string \(quoted)" : quoted }
            return scalar.doubleValue != nil || scalar.boolValue != nil ? scalar.value : quoted
        }
    }
}
