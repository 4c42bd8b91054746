/// A source of cryptographically secure random bytes, injected wherever AuthFlow needs
/// randomness so tests can be exact.
public protocol SecureRandom: Sendable {
    /// Returns `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
}
