internal import COpenSSL

/// A fetched `EVP_MD`, immutable and shareable between threads.
struct MessageDigestHandle: @unchecked Sendable {
    let pointer: OpaquePointer?
}

/// The hash functions JOSE uses.
enum HashFunction: Sendable {
    case sha256, sha384, sha512

    // Fetched once: OpenSSL 3 otherwise looks the implementation up again on every use.
    private static let sha256MD = MessageDigestHandle(pointer: EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256())
    private static let sha384MD = MessageDigestHandle(pointer: EVP_MD_fetch(nil, "SHA384", nil) ?? EVP_sha384())
    private static let sha512MD = MessageDigestHandle(pointer: EVP_MD_fetch(nil, "SHA512", nil) ?? EVP_sha512())

    var md: OpaquePointer? {
        switch self {
        case .sha256: return Self.sha256MD.pointer
        case .sha384: return Self.sha384MD.pointer
        case .sha512: return Self.sha512MD.pointer
        }
    }
}

extension JWSAlgorithm {
    var hashFunction: HashFunction {
        switch self {
        case .rs256, .ps256, .es256, .hs256, .edDSA: return .sha256
        case .rs384, .ps384, .es384, .hs384: return .sha384
        case .rs512, .ps512, .es512, .hs512: return .sha512
        }
    }
}

/// One-shot hashes and HMACs through libcrypto.
enum OpenSSLDigest {
    /// SHA-1, for X.509 certificate thumbprints (`x5t`, RFC 7515 §4.1.7) only, never for a signature.
    static func sha1(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 20) { out, initialized in
            var length: UInt32 = 0
            if EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_sha1(), nil) == 1 {
                initialized = Int(length)
            } else {
                ERR_clear_error()
                initialized = 0
            }
        }
    }

    static func hash(_ function: HashFunction, _ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 64) { out, initialized in
            var length: UInt32 = 0
            if EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, function.md, nil) == 1 {
                initialized = Int(length)
            } else {
                ERR_clear_error()
                initialized = 0
            }
        }
    }

    /// Hashes into a caller-provided buffer of at least 64 bytes; returns the digest length or 0.
    static func hash(
        _ function: HashFunction, _ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var length: UInt32 = 0
        guard EVP_Digest(input.baseAddress, input.count, out, &length, function.md, nil) == 1 else {
            ERR_clear_error()
            return 0
        }
        return Int(length)
    }

    static func hmac(_ function: HashFunction, key: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>)
        -> [UInt8]
    {
        var dummy: UInt8 = 0
        return withUnsafeMutablePointer(to: &dummy) { dummyPointer in
            [UInt8](unsafeUninitializedCapacity: 64) { out, initialized in
                var length: UInt32 = 0
                let keyPointer = UnsafeRawPointer(key.baseAddress ?? UnsafePointer(dummyPointer))
                let messagePointer = message.baseAddress ?? UnsafePointer(dummyPointer)
                if HMAC(
                    function.md, keyPointer, Int32(key.count), messagePointer, message.count, out.baseAddress, &length)
                    != nil
                {
                    initialized = Int(length)
                } else {
                    ERR_clear_error()
                    initialized = 0
                }
            }
        }
    }
}

/// Random bytes from `RAND_bytes`.
enum OpenSSLRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            // RAND_bytes only fails when the system entropy source is broken; retry a few times,
            // then fall back to the system generator rather than return predictable bytes.
            var ok = false
            for _ in 0..<3 where RAND_bytes(out.baseAddress, Int32(count)) == 1 {
                ok = true
                break
            }
            if !ok {
                ERR_clear_error()
                var generator = SystemRandomNumberGenerator()
                for index in 0..<count { out[index] = UInt8.random(in: 0...255, using: &generator) }
            }
            initialized = count
        }
    }
}
