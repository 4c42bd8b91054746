extension JWK {
    /// Verifies a JOSE-encoded signature (raw `r‖s` for ECDSA) over `message`. The caller has
    /// already established that `algorithm` fits this key.
    func verifySignature(
        _ signature: UnsafeBufferPointer<UInt8>, over message: UnsafeBufferPointer<UInt8>,
        algorithm: JWSAlgorithm
    ) -> Bool {
        switch material {
        case .oct(let k):
            guard signature.count == algorithm.hashLength else { return false }
            let expected = k.withUnsafeBufferPointer {
                OpenSSLDigest.hmac(algorithm.hashFunction, key: $0, message: message)
            }
            guard expected.count == signature.count else { return false }
            var difference: UInt8 = 0
            for index in 0..<expected.count { difference |= expected[index] ^ signature[index] }
            return difference == 0
        case .ec(let curve, _, _, _):
            // JWS ECDSA signatures are exactly r‖s; DER or any other length is invalid.
            let half = curve.coordinateLength
            guard signature.count == 2 * half, let pkey else { return false }
            return ECDSASignatureEncoding.withDER(fromRaw: signature, half: half) {
                pkey.verify(signature: $0, message: message, algorithm: algorithm)
            }
        case .rsa(let n, _, _):
            guard signature.count == (KeyMaterial.bitLength(KeyMaterial.stripLeadingZeros(n)) + 7) / 8, let pkey else {
                return false
            }
            return pkey.verify(signature: signature, message: message, algorithm: algorithm)
        case .ed25519:
            guard signature.count == 64, let pkey else { return false }
            return pkey.verify(signature: signature, message: message, algorithm: algorithm)
        }
    }

    /// Signs `message`, returning the JOSE encoding (raw `r‖s` for ECDSA).
    func signature(over message: UnsafeBufferPointer<UInt8>, algorithm: JWSAlgorithm) throws(JOSEError) -> [UInt8] {
        switch material {
        case .oct(let k):
            return k.withUnsafeBufferPointer { OpenSSLDigest.hmac(algorithm.hashFunction, key: $0, message: message) }
        case .ec(let curve, _, _, _):
            guard let pkey,
                let raw = pkey.withSignature(
                    message: message, algorithm: algorithm,
                    { ECDSASignatureEncoding.raw(fromDER: $0, half: curve.coordinateLength) })
            else {
                throw JOSEError(
                    .cryptoFailure, "expected OpenSSL to produce an ECDSA signature, it failed", keyID: keyID)
            }
            return raw
        case .rsa, .ed25519:
            guard let pkey, let signature = pkey.sign(message: message, algorithm: algorithm) else {
                throw JOSEError(
                    .cryptoFailure, "expected OpenSSL to produce a \(algorithm.rawValue) signature, it failed",
                    keyID: keyID)
            }
            return signature
        }
    }
}
