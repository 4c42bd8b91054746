/// An unkeyed container over a sequence.
struct YAMLUnkeyedContainer: UnkeyedDecodingContainer {
    let items: [YAMLNode]
    let codingPath: [any CodingKey]
    let context: YAMLDecodingContext
    private(set) var currentIndex = 0

    init(items: [YAMLNode], codingPath: [any CodingKey], context: YAMLDecodingContext) {
        self.items = items
        self.codingPath = codingPath
        self.context = context
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func nextDecoder() throws(YAMLError) -> YAMLNodeDecoder {
        guard currentIndex < items.count else {
            let mark = items.last?.mark ?? YAMLMark(line: 1, column: 1)
            throw context.error(.missingKey, "expected another item in the sequence, found its end", at: mark)
        }
        defer { currentIndex += 1 }
        return YAMLNodeDecoder(
            node: items[currentIndex], codingPath: codingPath + [YAMLCodingKey(intValue: currentIndex)],
            context: context)
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < items.count, items[currentIndex].scalar?.isNull == true else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try nextDecoder().decode(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try nextDecoder().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try nextDecoder()
    }
}
