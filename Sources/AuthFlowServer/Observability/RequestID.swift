import AuthFlowJOSE

/// Request ids (`X-Request-Id`): taken from a trusted proxy when well-formed, otherwise generated.
enum RequestID {
    /// The header that carries the id, in requests from a proxy and in every response.
    static let header = "X-Request-Id"

    /// Whether `value` is a well-formed request id: 8 to 128 characters of `A-Z a-z 0-9 . _ -` (a UUID, nginx's
    /// `$request_id`, a W3C trace id). Anything else is replaced, never echoed.
    static func isWellFormed(_ value: String) -> Bool {
        let bytes = value.utf8
        guard (8...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// A fresh id: 16 random bytes as 32 lowercase hex digits.
    static func generate(random: any SecureRandom) -> String {
        Hex.encode(random.bytes(16))
    }
}
