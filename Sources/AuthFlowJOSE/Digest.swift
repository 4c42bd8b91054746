/// Hashes and MACs used around JOSE (PKCE challenges, thumbprints, HMAC vectors).
public enum Digest {
    /// SHA-256 of `bytes`.
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ OpenSSLDigest.hash(.sha256, $0) }) { return digest }
        return Array(bytes).withUnsafeBufferPointer { OpenSSLDigest.hash(.sha256, $0) }
    }

    /// SHA-512 of `bytes` (Google RISC's `hash_base64_sha512_sha512` token identifier).
    public static func sha512(_ bytes: some Collection<UInt8>) -> [UInt8] {
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
