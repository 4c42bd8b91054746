/// Decodes `Decodable` values from a ``YAMLNode`` tree, keeping the position of the node that failed.
///
/// Scalars follow the YAML 1.2 core schema: `Bool` needs a plain `true`/`false` (a quoted `"true"`
/// is a string; `yes`/`no`/`on`/`off` get an error that says so), integers need a plain integer that
/// fits the type, `nil` is a plain `null`/`~`/empty scalar. A `String` accepts any scalar except
/// `null`, so `client_id: 1234567890` decodes as the string `"1234567890"`.
public struct YAMLDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Decodes a `T` from `node`. `source` is the text the node was parsed from (for source lines).
    /// - Throws: ``YAMLError`` at the failing node: `typeMismatch`, `missingKey` or `invalidValue`.
    ///   An error thrown by `T`'s own `init(from:)` is reported at the node it was decoding.
    public func decode<T: Decodable>(_ type: T.Type, from node: YAMLNode, fileName: String, source: String)
        throws(YAMLError) -> T
    {
        let context = YAMLDecodingContext(fileName: fileName, source: YAMLSourceText(source), root: node)
        do {
            return try T(from: YAMLNodeDecoder(node: node, codingPath: [], context: context))
        } catch let error as YAMLError {
            throw error
        } catch let error as DecodingError {
            throw context.error(from: error)
        } catch {
            throw context.error(.invalidValue, "\(error)", at: node.mark)
        }
    }

    /// Parses `text` (see ``YAMLParser/parse(_:fileName:limits:)``) and decodes a `T` from it.
    /// - Throws: ``YAMLError`` from parsing or decoding.
    public func decode<T: Decodable>(_ type: T.Type, from text: String, fileName: String, limits: YAMLLimits = .init())
        throws(YAMLError) -> T
    {
        let node = try YAMLParser.parse(text, fileName: fileName, limits: limits)
        return try decode(type, from: node, fileName: fileName, source: text)
    }
}

/// What every container of one decoding shares.
struct YAMLDecodingContext: Sendable {
    let fileName: String
    let source: YAMLSourceText
    let root: YAMLNode

    func error(_ code: YAMLError.Code, _ message: String, at mark: YAMLMark) -> YAMLError {
        YAMLError(code: code, message: message, fileName: fileName, mark: mark, source: source)
    }

    /// Maps a `DecodingError` thrown by user code to the node its coding path names.
    func error(from decodingError: DecodingError) -> YAMLError {
        switch decodingError {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            return error(.invalidValue, context.debugDescription, at: mark(of: context.codingPath))
        case .keyNotFound(let key, let context):
            return error(
                .missingKey, "missing key \(YAMLError.quote(key.stringValue))", at: mark(of: context.codingPath))
        @unknown default:
            return error(.invalidValue, "\(decodingError)", at: root.mark)
        }
    }

    private func mark(of path: [any CodingKey]) -> YAMLMark {
        var node = root
        for key in path {
            switch node {
            case .mapping(let pairs, _):
                guard let next = pairs.first(where: { $0.key.value == key.stringValue }) else { return node.mark }
                node = next.value
            case .sequence(let items, _):
                guard let index = key.intValue, items.indices.contains(index) else { return node.mark }
                node = items[index]
            case .scalar:
                return node.mark
            }
        }
        return node.mark
    }
}

/// A coding key for sequence positions and super decoders.
struct YAMLCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }
    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
    static let `super` = YAMLCodingKey(stringValue: "super")
}
