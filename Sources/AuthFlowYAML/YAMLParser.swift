/// Parses one YAML document into a ``YAMLNode`` tree with positions: the entry point of this module, the strict
/// YAML reader `providers.yaml` is read with (package-only: the core's `ConfigurationLoader` walks the tree by
/// hand, so each problem gets its own message at its own line and column).
///
/// Built on libyaml's event API. Beyond well-formedness it refuses what a configuration file should
/// never contain: duplicate keys, more than one document, tags outside the YAML 1.2 core schema,
/// non-scalar keys, and documents whose size, node count (aliases expanded) or depth exceed ``YAMLLimits``.
package enum YAMLParser {
    /// Parses `text`, naming it `fileName` in errors.
    ///
    /// An empty stream (or one holding only comments) parses as a `null` scalar at 1:1.
    /// - Throws: ``YAMLError`` with the position of the problem: `syntax`, `duplicateKey`,
    ///   `documentTooLarge`, `tooManyNodes`, `tooDeep`, `multipleDocuments`, `unknownAnchor`,
    ///   `unsupportedTag` or `complexKey`.
    package static func parse(_ text: String, fileName: String, limits: YAMLLimits = .init()) throws(YAMLError)
        -> YAMLNode
    {
        let source = YAMLSourceText(text)
        let size = text.utf8.count
        guard size <= limits.maxDocumentBytes else {
            throw YAMLError(
                code: .documentTooLarge,
                message: "document is \(size) bytes; the limit is \(limits.maxDocumentBytes) bytes",
                fileName: fileName, mark: nil, sourceLine: nil)
        }
        let reader = try LibYAMLEventReader(source: source, fileName: fileName)
        var builder = YAMLTreeBuilder(fileName: fileName, source: source, limits: limits)
        var root: YAMLNode?
        // libyaml consumes input on every event, so this loop ends; the bound is a second guard.
        for _ in 0...(size * 4 + 16) {
            let event = try reader.next()
            switch event {
            case .streamStart, .documentEnd:
                continue
            case .documentStart(let mark):
                if root != nil {
                    throw YAMLError(
                        code: .multipleDocuments,
                        message: "expected a single YAML document, found a second one", fileName: fileName,
                        mark: mark, source: source)
                }
            case .streamEnd:
                return root ?? .scalar(YAMLScalar(value: "", mark: YAMLMark(line: 1, column: 1)))
            default:
                if let node = try builder.add(event) { root = node }
            }
        }
        throw YAMLError(
            code: .syntax, message: "the parser did not reach the end of the document", fileName: fileName,
            mark: nil, sourceLine: nil)
    }
}
