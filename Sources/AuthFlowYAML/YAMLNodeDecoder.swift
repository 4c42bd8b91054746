/// The `Decoder` over one node. Every failure is a ``YAMLError`` at the node concerned.
struct YAMLNodeDecoder: Decoder {
    let node: YAMLNode
    let codingPath: [any CodingKey]
    let context: YAMLDecodingContext
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .mapping(let pairs, let mark) = node else {
            throw context.error(.typeMismatch, "expected a mapping, found \(node.foundDescription)", at: node.mark)
        }
        return KeyedDecodingContainer(
            YAMLKeyedContainer<Key>(pairs: pairs, mark: mark, codingPath: codingPath, context: context))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .sequence(let items, _) = node else {
            throw context.error(.typeMismatch, "expected a sequence, found \(node.foundDescription)", at: node.mark)
        }
        return YAMLUnkeyedContainer(items: items, codingPath: codingPath, context: context)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }
}

extension YAMLNodeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        node.scalar?.isNull ?? false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        let scalar = try self.scalar(expected: "a boolean")
        if let value = scalar.boolValue { return value }
        var message = "expected a boolean, found \(node.foundDescription)"
        if !scalar.isString, ["yes", "no", "on", "off", "y", "n"].contains(scalar.value.lowercased()) {
            message += " (YAML 1.2 reads yes/no/on/off as strings; write true or false)"
        } else if scalar.isString, scalar.value == "true" || scalar.value == "false" {
            message += " (remove the quotes)"
        }
        throw context.error(.typeMismatch, message, at: scalar.mark)
    }

    func decode(_ type: String.Type) throws -> String {
        let scalar = try self.scalar(expected: "a string")
        guard !scalar.isNull else {
            throw context.error(.typeMismatch, "expected a string, found null", at: scalar.mark)
        }
        return scalar.value
    }

    func decode(_ type: Double.Type) throws -> Double {
        let scalar = try self.scalar(expected: "a number")
        guard let value = scalar.doubleValue else {
            throw context.error(.typeMismatch, "expected a number, found \(node.foundDescription)", at: scalar.mark)
        }
        return value
    }

    func decode(_ type: Float.Type) throws -> Float {
        let value = try decode(Double.self)
        let narrowed = Float(value)
        guard narrowed.isFinite || !value.isFinite else {
            throw context.error(.invalidValue, "expected a number that fits in Float, found \(value)", at: node.mark)
        }
        return narrowed
    }

    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try T(from: self)
    }

    private func scalar(expected: String) throws(YAMLError) -> YAMLScalar {
        guard case .scalar(let scalar) = node else {
            throw context.error(.typeMismatch, "expected \(expected), found \(node.foundDescription)", at: node.mark)
        }
        return scalar
    }

    private func integer<T: FixedWidthInteger>() throws(YAMLError) -> T {
        let scalar = try self.scalar(expected: "an integer")
        guard let value = scalar.int64Value else {
            if !scalar.isString, T.self == UInt64.self || T.self == UInt.self,
                let big = UInt64(scalar.value), let fitted = T(exactly: big)
            {
                return fitted
            }
            throw context.error(.typeMismatch, "expected an integer, found \(node.foundDescription)", at: scalar.mark)
        }
        guard let fitted = T(exactly: value) else {
            throw context.error(
                .invalidValue, "expected an integer that fits in \(T.self), found \(scalar.value)", at: scalar.mark)
        }
        return fitted
    }
}
