public import AuthFlowJOSE

/// Seals a ``FlowRecord`` into a flow cookie value and opens it again, so a sign-in start stores nothing on
/// the server.
///
/// AES-256-GCM (`TokenCipher`) under a key derived from the server secret by HKDF-SHA256 with its own
/// label (`authflow flow cookie v1`), so flow cookies and encrypted tokens never share a key. The cookie's
/// name and the provider are the associated data: a value opens only under the cookie name it was set with
/// and only for the provider whose callback it reaches. The value is `v1.` followed by the base64url sealed
/// bytes (which carry their own format version); anything else opens to `nil`.
public struct FlowRecordSeal: Sendable, CustomStringConvertible {
    /// The HKDF info label of the flow-cookie key.
    package static let label = "authflow flow cookie v1"
    /// The longest cookie value ``open(_:cookieName:provider:)`` looks at.
    package static let maximumValueLength = 3072

    private let cipher: TokenCipher

    /// Derives the flow-cookie key from `secret`.
    ///
    /// - Throws: `JOSEError` `weakKey` for a secret shorter than 32 bytes, `cryptoFailure`
    ///   when OpenSSL fails.
    public init(secret: some Collection<UInt8>, random: any SecureRandom) throws(JOSEError) {
        cipher = try TokenCipher(secret: secret, random: random, label: Self.label)
    }

    /// Derives the flow-cookie keys from `keyring`: seals under its current secret, opens under any of them.
    ///
    /// - Throws: `JOSEError` `cryptoFailure` when OpenSSL fails.
    package init(keyring: SecretKeyring, random: any SecureRandom) throws(JOSEError) {
        cipher = try keyring.cipher(label: Self.label, random: random)
    }

    /// The cookie value carrying `record`, bound to `cookieName` and the record's provider.
    ///
    /// - Throws: `JOSEError` `cryptoFailure` when OpenSSL or the random source fails.
    public func seal(_ record: FlowRecord, cookieName: String) throws(JOSEError) -> String {
        let sealed = try cipher.seal(
            record.serialized(), associatedData: Self.associatedData(cookieName: cookieName, provider: record.provider))
        return "v1." + Base64URL.encode(sealed)
    }

    /// The record inside `value`, or `nil` when the value is missing, oversized, malformed, altered, sealed
    /// under a secret not in the keyring, set under another cookie name or meant for another provider.
    public func open(_ value: String?, cookieName: String, provider: String) -> FlowRecord? {
        guard let value, value.utf8.count <= Self.maximumValueLength, value.hasPrefix("v1."),
            let sealed = try? Base64URL.decode(value.dropFirst(3)),
            let bytes = try? cipher.open(
                sealed, associatedData: Self.associatedData(cookieName: cookieName, provider: provider)),
            let record = try? FlowRecord(serialized: bytes), record.provider == provider
        else { return nil }
        return record
    }

    /// `FlowRecordSeal(AES-256-GCM)`; never the key.
    public var description: String { "FlowRecordSeal(AES-256-GCM)" }

    private static func associatedData(cookieName: String, provider: String) -> [UInt8] {
        Array("\(cookieName)\n\(provider)".utf8)
    }
}
