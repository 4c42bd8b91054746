/// A keyed container over a mapping; a missing key is reported at the mapping.
struct YAMLKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let pairs: [(key: YAMLScalar, value: YAMLNode)]
    let mark: YAMLMark
    let codingPath: [any CodingKey]
    let context: YAMLDecodingContext

    var allKeys: [Key] { pairs.compactMap { Key(stringValue: $0.key.value) } }

    func contains(_ key: Key) -> Bool { value(for: key) != nil }

    private func value(for key: Key) -> YAMLNode? {
        pairs.first(where: { $0.key.value == key.stringValue })?.value
    }

    private func decoder(for key: Key) throws(YAMLError) -> YAMLNodeDecoder {
        guard let node = value(for: key) else {
            throw context.error(.missingKey, "missing key \(YAMLError.quote(key.stringValue))", at: mark)
        }
        return YAMLNodeDecoder(node: node, codingPath: codingPath + [key], context: context)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try decoder(for: key).decodeNil()
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder(for: key).decode(type)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(for: key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(for: key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(for: key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(for: key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        YAMLNodeDecoder(
            node: .mapping(pairs, mark), codingPath: codingPath + [YAMLCodingKey.super], context: context)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder(for: key)
    }
}
