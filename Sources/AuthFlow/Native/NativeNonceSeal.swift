package import AuthFlowJOSE
package import Foundation

/// The nonces `POST /auth/{provider}/native/nonce` hands out: stateless, sealed with a key derived from
/// `server.secret` (AES-256-GCM), so any instance opens what another issued. A nonce names its provider,
/// when it was issued and when it expires; single use comes from the spent-state set (`FlowStore`) when
/// a sign-in spends it.
package struct NativeNonceSeal: Sendable {
    /// How long an issued nonce is accepted: 10 minutes.
    package static let lifetime: Double = 600
    /// The longest nonce opened (characters); anything longer is refused unread.
    static let maximumLength = 512

    /// What an opened nonce says.
    package struct Issued: Sendable, Hashable {
        /// The provider it was issued for.
        package let provider: String
        /// When it was issued (whole seconds since 1970).
        package let issuedAt: Date
        /// When it stops being accepted.
        package let expiresAt: Date
    }

    private let cipher: TokenCipher

    /// Derives the sealing key from `secret` (its own HKDF label: a nonce opens as nothing else).
    ///
    /// - Throws: `JOSEError` `weakKey` for a secret shorter than 32 bytes.
    package init(secret: some Collection<UInt8>, random: any SecureRandom) throws(JOSEError) {
        cipher = try TokenCipher(secret: secret, random: random, label: Self.label)
    }

    /// Derives the sealing keys from `keyring`: issues under its current secret, opens under any of them.
    ///
    /// - Throws: `JOSEError` `cryptoFailure` when OpenSSL fails.
    package init(keyring: SecretKeyring, random: any SecureRandom) throws(JOSEError) {
        cipher = try keyring.cipher(label: Self.label, random: random)
    }

    /// The HKDF info label of the nonce key.
    static let label = "authflow native nonce v1"

    /// A fresh nonce for `provider`, issued at `now`.
    ///
    /// - Throws: `JOSEError` `cryptoFailure` when sealing fails.
    package func issue(provider: String, now: Date) throws(JOSEError) -> (nonce: String, expiresAt: Date) {
        let issued = Int64(now.timeIntervalSince1970.rounded(.down))
        let expires = issued + Int64(Self.lifetime)
        let sealed = try cipher.seal(Array("\(issued) \(expires) \(provider)".utf8), associatedData: [])
        return (Base64URL.encode(sealed), Date(timeIntervalSince1970: Double(expires)))
    }

    /// Opens `nonce` for `provider` at `now`.
    ///
    /// - Throws: ``SignInError`` `invalid_nonce` (not sealed by a secret of the keyring, or malformed), `nonce_expired`,
    ///   `nonce_provider_mismatch`.
    package func open(_ nonce: String, provider: String, now: Date) throws(SignInError) -> Issued {
        let invalid = SignInError(
            .invalidNonce, "expected a nonce issued by POST /auth/\(provider)/native/nonce, found another value",
            provider: provider)
        guard nonce.utf8.count <= Self.maximumLength, let sealed = try? Base64URL.decode(nonce),
            let plain = try? cipher.open(sealed, associatedData: []),
            let text = String(validating: plain, as: UTF8.self)
        else { throw invalid }
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let issued = Int64(parts[0]), let expires = Int64(parts[1]) else { throw invalid }
        guard parts[2] == provider else {
            throw SignInError(
                .nonceProviderMismatch, "expected a nonce issued for provider '\(provider)', found one for another",
                provider: provider)
        }
        let expiresAt = Date(timeIntervalSince1970: Double(expires))
        guard now < expiresAt else {
            throw SignInError(
                .nonceExpired,
                "expected a nonce issued less than \(Int(Self.lifetime)) s ago, found one that expired at "
                    + "\(expires)", provider: provider)
        }
        return Issued(
            provider: provider, issuedAt: Date(timeIntervalSince1970: Double(issued)), expiresAt: expiresAt)
    }
}
