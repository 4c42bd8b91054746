/// Random bytes from OpenSSL's `RAND_bytes` (the operating system's CSPRNG underneath).
public struct SystemRandom: SecureRandom {
    /// Creates the system random source.
    public init() {}

    /// Returns `count` random bytes.
    public func bytes(_ count: Int) -> [UInt8] { OpenSSLRandom.bytes(count) }
}
