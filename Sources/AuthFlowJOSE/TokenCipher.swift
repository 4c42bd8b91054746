package import AuthFlowJSON

/// Authenticated encryption for secrets kept at rest (provider access and refresh tokens): the SQL stores
/// (`SQLiteStores`, `PostgresStores`) derive one from the server secret and seal and open with it.
///
/// AES-256-GCM under a key derived from the server secret (`server.secret`) by HKDF-SHA256 with the info
/// string `"authflow token encryption v1"` (or another label per purpose) and no salt. Each seal draws a
/// fresh 12-byte nonce from the injected ``SecureRandom``. The output is versioned:
///
/// ```
/// version (1 byte, 0x01) || nonce (12 bytes) || ciphertext || tag (16 bytes)
/// ```
///
/// The version byte followed by the caller's associated data is authenticated, so a ciphertext opens only
/// for the row it was sealed for (e.g. `kind|provider|subject`) and only under the same secret.
///
/// Built from a keyring of the current and previous secrets (`server.previous_secrets`) it also opens what
/// the previous secrets sealed (secret rotation); it always seals under the current one.
///
/// `description` and reflection never show the key.
package struct TokenCipher: Sendable, CustomStringConvertible, CustomReflectable {
    /// The format version this code writes (the first byte of every sealed value).
    package static let formatVersion: UInt8 = 1
    /// The shortest accepted secret, in bytes.
    package static let minimumSecretLength = 32
    /// Bytes a sealed value adds to its plaintext: version, nonce and tag.
    package static let overhead = 1 + AESGCM.nonceLength + AESGCM.tagLength

    /// The HKDF info label of the token-encryption key.
    package static let tokenEncryptionLabel = "authflow token encryption v1"

    /// The derived keys, the current secret's first (the only one that seals).
    private let keys: [[UInt8]]
    private let random: any SecureRandom
    /// Encryption contexts keyed with the sealing key, reused across seals.
    private let sealContexts: SealContexts
    /// Called when a value opens only under a previous secret's key (``SecretKeyring``'s rotation notice).
    var onPreviousKey: (@Sendable () -> Void)? = nil

    private var key: [UInt8] { keys[0] }

    /// Derives the encryption key from `secret`.
    ///
    /// - Parameters:
    ///   - secret: the server secret, at least ``minimumSecretLength`` bytes.
    ///   - random: the source of nonces.
    ///   - label: the HKDF info string; each use of the secret gets its own label, so a value sealed for
    ///     one purpose never opens for another (default ``tokenEncryptionLabel``).
    /// - Throws: ``JOSEError`` `weakKey` for a short secret, `cryptoFailure` when OpenSSL fails.
    package init(
        secret: some Collection<UInt8>, random: any SecureRandom, label: String = TokenCipher.tokenEncryptionLabel
    ) throws(JOSEError) {
        let key = try Self.deriveKey(secret, label: label)
        self.keys = [key]
        self.random = random
        self.sealContexts = SealContexts(key: key)
    }

    /// A cipher over keys already derived (``SecretKeyring``), the sealing one first.
    init(derivedKeys: [[UInt8]], random: any SecureRandom) {
        precondition(!derivedKeys.isEmpty, "a cipher needs at least one key")
        self.keys = derivedKeys
        self.random = random
        self.sealContexts = SealContexts(key: derivedKeys[0])
    }

    /// The key HKDF-SHA256 derives from `secret` for `label`.
    ///
    /// - Throws: ``JOSEError`` `weakKey` for a short secret, `cryptoFailure` when OpenSSL fails.
    static func deriveKey(_ secret: some Collection<UInt8>, label: String) throws(JOSEError) -> [UInt8] {
        let secret = Array(secret)
        guard secret.count >= Self.minimumSecretLength else {
            throw JOSEError(
                .weakKey, "expected a secret of at least \(Self.minimumSecretLength) bytes, found \(secret.count) bytes"
            )
        }
        guard
            let key = AESGCM.deriveKey(
                secret: secret, salt: [], info: Array(label.utf8), length: AESGCM.keyLength)
        else {
            throw JOSEError(.cryptoFailure, "expected HKDF-SHA256 to derive the token key, found an OpenSSL failure")
        }
        return key
    }

    /// Derives the encryption key from the UTF-8 bytes of `secret`.
    ///
    /// - Throws: ``JOSEError`` `weakKey` for a secret shorter than 32 bytes,
    ///   `cryptoFailure` when OpenSSL fails.
    package init(secret: String, random: any SecureRandom) throws(JOSEError) {
        try self.init(secret: Array(secret.utf8), random: random)
    }

    /// Encrypts `plaintext`, binding it to `associatedData` (which is authenticated, not encrypted).
    ///
    /// - Throws: ``JOSEError`` `cryptoFailure` when OpenSSL fails or the random source returns too few bytes.
    package func seal(_ plaintext: some Collection<UInt8>, associatedData: some Collection<UInt8>) throws(JOSEError)
        -> [UInt8]
    {
        let nonce = random.bytes(AESGCM.nonceLength)
        guard nonce.count == AESGCM.nonceLength else {
            throw JOSEError(
                .cryptoFailure,
                "expected \(AESGCM.nonceLength) random bytes for the nonce, found \(nonce.count)")
        }
        // Written in place: version, nonce, then the ciphertext and the tag straight from OpenSSL, with the version
        // byte and the associated data authenticated as one string without being joined.
        let contexts = sealContexts
        let sealed = Self.withBytes(plaintext) { plaintext in
            Self.withBytes(associatedData) { associatedData in
                [UInt8](unsafeUninitializedCapacity: Self.overhead + plaintext.count) { output, initialized in
                    initialized = 0
                    guard let base = output.baseAddress else { return }
                    base[0] = Self.formatVersion
                    nonce.withUnsafeBufferPointer { (base + 1).initialize(from: $0.baseAddress!, count: $0.count) }
                    let ciphertext = base + 1 + AESGCM.nonceLength
                    let done = contexts.withContext { context in
                        AESGCM.seal(
                            context: context, nonce: base + 1, plaintext: plaintext,
                            associatedData: UnsafeBufferPointer(start: base, count: 1),
                            moreAssociatedData: associatedData, ciphertext: ciphertext,
                            tag: ciphertext + plaintext.count)
                    }
                    if done { initialized = output.count }
                }
            }
        }
        guard sealed.count == Self.overhead + plaintext.count else {
            throw JOSEError(.cryptoFailure, "expected AES-256-GCM to encrypt, found an OpenSSL failure")
        }
        return sealed
    }

    /// Decrypts a value written by ``seal(_:associatedData:)`` with the same secret (the current one or, from a
    /// ``SecretKeyring``, a previous one) and associated data.
    ///
    /// - Throws: ``JOSEError`` `invalidCiphertext` when the bytes are too short or of an unknown version;
    ///   `decryptionFailed` when they were altered, sealed for other associated data, or under another secret.
    package func open(_ sealed: some Collection<UInt8>, associatedData: some Collection<UInt8>) throws(JOSEError)
        -> [UInt8]
    {
        try Self.withBytes(sealed) { sealed throws(JOSEError) in
            guard sealed.count >= Self.overhead, let base = sealed.baseAddress else {
                throw JOSEError(
                    .invalidCiphertext,
                    "expected at least \(Self.overhead) bytes of sealed data, found \(sealed.count)")
            }
            guard base[0] == Self.formatVersion else {
                throw JOSEError(
                    .invalidCiphertext,
                    "expected sealed data of format version \(Self.formatVersion), found version \(base[0])")
            }
            let nonceEnd = 1 + AESGCM.nonceLength
            let tagStart = sealed.count - AESGCM.tagLength
            let ciphertext = UnsafeBufferPointer(rebasing: sealed[nonceEnd..<tagStart])
            return try Self.withBytes(associatedData) { associatedData throws(JOSEError) in
                for (index, key) in keys.enumerated() {
                    if let plaintext = AESGCM.open(
                        key: key, nonce: base + 1, ciphertext: ciphertext, tag: base + tagStart,
                        associatedData: UnsafeBufferPointer(start: base, count: 1), moreAssociatedData: associatedData)
                    {
                        if index > 0 { onPreviousKey?() }
                        return plaintext
                    }
                }
                throw JOSEError(
                    .decryptionFailed,
                    "expected sealed data that authenticates under this secret and associated data, found data that "
                        + "does not (altered, bound to another record, or sealed under another secret)")
            }
        }
    }

    /// A keyed digest of `message` for looking a sealed value up without storing it in clear: HMAC-SHA256
    /// under a subkey derived from the encryption key for `purpose` (HMAC-SHA256 of the purpose), so the
    /// digest is only computable with the secret and differs per purpose.
    package func keyedDigest(_ message: some Collection<UInt8>, purpose: String) -> [UInt8] {
        Self.keyedDigest(message, purpose: purpose, key: key)
    }

    /// ``keyedDigest(_:purpose:)`` under every key, the current secret's first: a lookup by digest tries each,
    /// so a value indexed before a rotation is still found.
    package func keyedDigests(_ message: some Collection<UInt8>, purpose: String) -> [[UInt8]] {
        let message = Array(message)
        return keys.map { Self.keyedDigest(message, purpose: purpose, key: $0) }
    }

    private static func keyedDigest(_ message: some Collection<UInt8>, purpose: String, key: [UInt8]) -> [UInt8] {
        Digest.hmacSHA256(key: Digest.hmacSHA256(key: key, message: Array(purpose.utf8)), message: message)
    }

    /// `TokenCipher(AES-256-GCM, v1)`; never the key.
    package var description: String { "TokenCipher(AES-256-GCM, v\(Self.formatVersion))" }

    /// A mirror without children, so `dump` cannot print the key.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

    /// Calls `body` with the bytes of `bytes`: in place when they are contiguous, else from a copy.
    private static func withBytes<Result, Failure: Error>(
        _ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let direct = bytes.withContiguousStorageIfAvailable { buffer in
            Swift.Result { () throws(Failure) -> Result in try body(buffer) }
        }
        if let direct { return try direct.get() }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(Failure) in try body(buffer) }
    }
}

extension ErrorCode where Domain == JOSEError {
    /// Sealed data is too short or has an unknown format version (``TokenCipher``).
    package static let invalidCiphertext = JOSEError.Code(rawValue: "invalid_ciphertext")
    /// Sealed data does not authenticate: altered, bound to other associated data, or sealed under another
    /// secret (``TokenCipher``).
    package static let decryptionFailed = JOSEError.Code(rawValue: "decryption_failed")
}
