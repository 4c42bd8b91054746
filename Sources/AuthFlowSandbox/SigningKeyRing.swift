import AuthFlowJOSE

/// One provider's id_token signing keys: the current one signs, earlier ones stay published so tokens
/// already issued still verify after a rotation.
struct SigningKeyRing: Sendable {
    var current: JWK
    var previous: [JWK] = []

    /// The JWKS document: public keys only, current first, each with `use: sig`, `alg: RS256` unless
    /// `withAlgorithm` is false (Microsoft's keys carry none), and the `extraMembers` (Microsoft's `issuer`).
    func jwksDocument(
        withAlgorithm: Bool = true, algorithm: JWSAlgorithm = .rs256, extraMembers: [String: JSONValue] = [:]
    ) -> JSONValue {
        let keys = ([current] + previous).map { key -> JSONValue in
            var object = key.publicKey.jsonValue().objectValue ?? [:]
            object["alg"] = withAlgorithm ? .string(algorithm.rawValue) : nil
            object["use"] = .string("sig")
            for (name, value) in extraMembers { object[name] = value }
            return .object(object)
        }
        return .object(["keys": .array(keys)])
    }

    /// The public keys as a set, for verifying what the sandbox signed.
    var publicKeySet: JWKSet { JWKSet(keys: ([current] + previous).map(\.publicKey)) }
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
