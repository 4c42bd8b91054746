import Synchronization

/// The server secret and the secrets it replaced (`server.secret` and `server.previous_secrets`), for
/// rotating the secret without breaking what the old one sealed.
///
/// Every key derived from the server secret comes from here: ``cipher(label:random:)`` gives a
/// ``TokenCipher`` that seals under the current secret and opens under the current one or any previous one.
/// A secret dropped from the keyring opens nothing any more. Derived keys are computed once per label and
/// kept. `description` and reflection never show a secret or a key.
package final class SecretKeyring: Sendable, CustomStringConvertible, CustomReflectable {
    private let secrets: [[UInt8]]
    private let derived = Mutex<[String: [[UInt8]]]>([:])
    /// Who hears that a value opened only under a previous secret, and the labels already reported.
    private let rotation = Mutex<(observer: (@Sendable (String) -> Void)?, reported: Set<String>)>((nil, []))

    /// How many secrets the keyring holds: the current one and the previous ones.
    package var count: Int { secrets.count }

    /// A keyring sealing under `current` and also opening under each of `previous` (newest first).
    ///
    /// - Throws: ``JOSEError`` `weakKey` naming the secret (`current`, or `previous[i]`) shorter than
    ///   ``TokenCipher/minimumSecretLength`` bytes.
    package init(current: some Collection<UInt8>, previous: [[UInt8]] = []) throws(JOSEError) {
        let all = [Array(current)] + previous
        for (index, secret) in all.enumerated() where secret.count < TokenCipher.minimumSecretLength {
            let name = index == 0 ? "the current secret" : "previous secret \(index - 1)"
            throw JOSEError(
                .weakKey,
                "expected \(name) to be at least \(TokenCipher.minimumSecretLength) bytes, found \(secret.count) bytes"
            )
        }
        secrets = all
    }

    /// A keyring over the UTF-8 bytes of `current` and `previous`.
    ///
    /// - Throws: ``JOSEError`` `weakKey` for a secret shorter than ``TokenCipher/minimumSecretLength`` bytes.
    package convenience init(current: String, previous: [String] = []) throws(JOSEError) {
        try self.init(current: Array(current.utf8), previous: previous.map { Array($0.utf8) })
    }

    /// A cipher for the purpose `label` (the HKDF info string): seals under the current secret, opens under any.
    ///
    /// - Throws: ``JOSEError`` `cryptoFailure` when OpenSSL fails to derive a key.
    package func cipher(label: String = TokenCipher.tokenEncryptionLabel, random: any SecureRandom) throws(JOSEError)
        -> TokenCipher
    {
        var cipher = TokenCipher(derivedKeys: try keys(label: label), random: random)
        cipher.onPreviousKey = { [self] in notePreviousSecretUsed(label: label) }
        return cipher
    }

    /// Calls `observer` the first time, per label, that one of this keyring's ciphers opens a value only under a
    /// previous secret: the server notices a rotation in progress (the audit trail's `secret.previous_used`).
    package func onPreviousSecretUsed(_ observer: @escaping @Sendable (String) -> Void) {
        rotation.withLock { $0.observer = observer }
    }

    private func notePreviousSecretUsed(label: String) {
        let observer = rotation.withLock { state -> (@Sendable (String) -> Void)? in
            guard state.reported.insert(label).inserted else { return nil }
            return state.observer
        }
        observer?(label)
    }

    private func keys(label: String) throws(JOSEError) -> [[UInt8]] {
        if let keys = derived.withLock({ $0[label] }) { return keys }
        var keys: [[UInt8]] = []
        for secret in secrets { keys.append(try TokenCipher.deriveKey(secret, label: label)) }
        derived.withLock { $0[label] = keys }
        return keys
    }

    /// `SecretKeyring(N secrets)`; never a secret.
    package var description: String { "SecretKeyring(\(secrets.count) secrets)" }

    /// A mirror without children, so `dump` cannot print a secret.
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .class) }
}
