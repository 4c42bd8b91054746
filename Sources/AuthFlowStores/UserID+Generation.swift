package import AuthFlowJOSE

extension UserID {
    /// A new random user id: 16 bytes (128 bits) from `random`, base64url-encoded (22 characters).
    package static func generate(using random: some SecureRandom) -> UserID {
        UserID(rawValue: Base64URL.encode(random.bytes(16)))
    }
}
