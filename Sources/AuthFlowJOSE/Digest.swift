/// Hashes and MACs used around JOSE (PKCE challenges, thumbprints, HMAC vectors).
public enum Digest {
    /// SHA-256 of `bytes`.
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ OpenSSLDigest.hash(.sha256, $0) }) { return digest }
        return Array(bytes).withUnsafeBufferPointer { OpenSSLDigest.hash(.sha256, $0) }
    }

    /// SHA-1 of `bytes`: an X.509 certificate's `x5t` thumbprint (RFC 7515 §4.1.7), which Microsoft Entra still
    /// names certificate credentials by; never used to sign or verify.
    package static func sha1(_ bytes: some Collection<UInt8>) -> [UInt8] {
        Array(bytes).withUnsafeBufferPointer { OpenSSLDigest.sha1($0) }
    }

    /// SHA-512 of `bytes` (Google RISC's `hash_base64_sha512_sha512` token identifier).
    package static func sha512(_ bytes: some Collection<UInt8>) -> [UInt8] {
        Array(bytes).withUnsafeBufferPointer { OpenSSLDigest.hash(.sha512, $0) }
    }

    /// HMAC-SHA-256 of `message` under `key`.
    public static func hmacSHA256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        let key = Array(key)
        let message = Array(message)
        return key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in OpenSSLDigest.hmac(.sha256, key: k, message: m) }
        }
    }
}
