package import AuthFlowJSON

/// Why bytes are not the strict CBOR ``CBORDecoder`` accepts: a stable code, a message saying what was
/// expected and what was found, and the byte offset of the item concerned. Messages never repeat the
/// input's content.
package struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code of a CBOR error.
    package typealias Code = ErrorCode<CBORError>

    /// What went wrong.
    package let code: Code
    /// What was expected and what was found.
    package let message: String
    /// The byte offset of the data item (or byte) concerned.
    package let offset: Int

    /// Creates an error.
    package init(_ code: Code, _ message: String, at offset: Int) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// `code: message (at byte N)`.
    package var description: String { "\(code.rawValue): \(message) (at byte \(offset))" }
}

extension ErrorCode where Domain == CBORError {
    /// The input ends inside a data item.
    package static var truncated: Self { Self(rawValue: "truncated") }
    /// An integer, length or count is not in its shortest encoding.
    package static var nonCanonical: Self { Self(rawValue: "non_canonical") }
    /// An indefinite length (additional information 31).
    package static var indefiniteLength: Self { Self(rawValue: "indefinite_length") }
    /// Additional information 28 to 30, which RFC 8949 reserves.
    package static var reserved: Self { Self(rawValue: "reserved") }
    /// A tag, a float, `undefined` or another simple value WebAuthn does not use.
    package static var unsupportedItem: Self { Self(rawValue: "unsupported_item") }
    /// A map key that is neither an integer nor a text string.
    package static var unsupportedKey: Self { Self(rawValue: "unsupported_key") }
    /// A map key appears twice.
    package static var duplicateKey: Self { Self(rawValue: "duplicate_key") }
    /// A text string that is not valid UTF-8.
    package static var invalidUTF8: Self { Self(rawValue: "invalid_utf8") }
    /// Arrays and maps nested deeper than the decoder's cap.
    package static var tooDeep: Self { Self(rawValue: "too_deep") }
    /// The input is longer than the decoder's cap.
    package static var tooLarge: Self { Self(rawValue: "too_large") }
    /// Bytes follow the data item where none may.
    package static var trailingBytes: Self { Self(rawValue: "trailing_bytes") }
}
