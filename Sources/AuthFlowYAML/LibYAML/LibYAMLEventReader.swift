internal import CYAML

/// Owns a libyaml parser and its input buffer, and turns libyaml events into ``YAMLEvent`` values.
///
/// The parser reads the buffer lazily, so both live exactly as long as this object; `deinit` frees them.
final class LibYAMLEventReader {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>
    private let fileName: String
    private let source: YAMLSourceText
    private var finished = false

    /// Prepares to read `source`, a UTF-8 document. Throws when libyaml cannot allocate its parser.
    init(source: YAMLSourceText, fileName: String) throws(YAMLError) {
        self.fileName = fileName
        self.source = source
        let bytes = Array(source.text.utf8)
        input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        guard yaml_parser_initialize(parser) != 0 else {
            parser.deallocate()
            input.deallocate()
            throw YAMLError(
                code: .syntax, message: "libyaml could not allocate a parser", fileName: fileName, mark: nil,
                sourceLine: nil)
        }
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deallocate()
        input.deallocate()
    }

    /// The next event. Throws a `syntax` error with libyaml's problem and position when the text is not
    /// well-formed; after the stream's end it keeps returning `streamEnd`.
    func next() throws(YAMLError) -> YAMLEvent {
        if finished { return .streamEnd }
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) != 0 else { throw parserError() }
        defer { yaml_event_delete(&event) }
        let mark = YAMLMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return .streamStart
        case YAML_STREAM_END_EVENT:
            finished = true
            return .streamEnd
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(mark)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_ALIAS_EVENT:
            return .alias(anchor: Self.string(event.data.alias.anchor) ?? "", mark: mark)
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let value =
                data.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: data.length), as: UTF8.self) }
                ?? ""
            let scalar = YAMLScalar(
                value: value, isQuoted: data.style != YAML_PLAIN_SCALAR_STYLE, tag: Self.string(data.tag),
                mark: mark)
            return .scalar(scalar, anchor: Self.string(data.anchor))
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            return .collectionStart(
                .sequence, anchor: Self.string(data.anchor), tag: Self.string(data.tag), mark: mark)
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            return .collectionStart(.mapping, anchor: Self.string(data.anchor), tag: Self.string(data.tag), mark: mark)
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            return .collectionEnd
        default:
            throw YAMLError(
                code: .syntax, message: "libyaml produced an unexpected event", fileName: fileName, mark: mark,
                source: source)
        }
    }

    private func parserError() -> YAMLError {
        let problem = parser.pointee.problem.map { String(cString: $0) } ?? "malformed YAML"
        let context = parser.pointee.context.map { String(cString: $0) }
        let problemMark = parser.pointee.problem_mark
        var mark = YAMLMark(line: Int(problemMark.line) + 1, column: Int(problemMark.column) + 1)
        if parser.pointee.error == YAML_READER_ERROR {
            // Reader errors carry a byte offset, not a line; find the line that holds it.
            mark = Self.mark(ofByteOffset: Int(parser.pointee.problem_offset), in: source.text)
        }
        var message = problem
        if let context {
            message += " \(context)"
            let contextMark = parser.pointee.context_mark
            if contextMark.line != problemMark.line || contextMark.column != problemMark.column {
                message += " started at line \(contextMark.line + 1), column \(contextMark.column + 1)"
            }
        }
        return YAMLError(code: .syntax, message: message, fileName: fileName, mark: mark, source: source)
    }

    private static func mark(ofByteOffset offset: Int, in text: String) -> YAMLMark {
        var line = 1
        var column = 1
        for (index, byte) in text.utf8.enumerated() {
            if index >= offset { break }
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return YAMLMark(line: line, column: column)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
