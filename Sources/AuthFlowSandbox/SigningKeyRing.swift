import AuthFlowJOSE

/// One provider's id_token signing keys: the current one signs, earlier ones stay published so tokens
/// already issued still verify after a rotation.
struct SigningKeyRing: Sendable {
    var current: JWK
    var previous: [JWK] = []

    /// The JWKS document: public keys only, current first, each with `alg: RS256` and `use: sig`.
    func jwksDocument() -> JSONValue {
        let keys = ([current] + previous).map { key -> JSONValue in
            var object = key.publicKey.jsonValue().objectValue ?? [:]
            object["alg"] = .string(JWSAlgorithm.rs256.rawValue)
            object["use"] = .string("sig")
            return .object(object)
        }
        return .object(["keys": .array(keys)])
    }

    /// The public keys as a set, for verifying what the sandbox signed.
    var publicKeySet: JWKSet { JWKSet(keys: ([current] + previous).map(\.publicKey)) }

    /// A `kid` shaped like the provider's own: Apple's are 10 characters, Google's and Facebook's 40 hex digits.
    static func makeKeyID(for provider: SandboxProvider, random: any SecureRandom) -> String {
        switch provider {
        case .apple:
            return randomString(
                length: 10, alphabet: Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8), random: random)
        case .google, .facebook, .x: return hex(random.bytes(20))
        }
    }
}

/// Lowercase hexadecimal.
func hex(_ bytes: some Collection<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}

/// A random string over `alphabet` (rejection sampling, so every symbol is equally likely).
func randomString(length: Int, alphabet: [UInt8], random: any SecureRandom) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(length)
    let limit = 256 - (256 % alphabet.count)
    var rounds = 0
    while out.count < length, rounds < 64 {
        rounds += 1
        for byte in random.bytes(length * 2) where Int(byte) < limit && out.count < length {
            out.append(alphabet[Int(byte) % alphabet.count])
        }
    }
    while out.count < length { out.append(alphabet[0]) }  // only with a broken random source
    return String(decoding: out, as: UTF8.self)
}
