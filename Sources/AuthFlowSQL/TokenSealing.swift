package import AuthFlowJOSE
package import AuthFlowStores
import Foundation

/// How the SQL stores keep provider tokens at rest: access and refresh tokens are sealed separately with a
/// `TokenCipher`, each with associated data `"<kind>|<provider byte count>:<provider>|<subject>"` (kind
/// `access_token` or `refresh_token`), so a value decrypts only in the column and row it was written to.
/// Expiry and scope are stored in clear. Tokens bound to a DPoP key (RFC 9449) are sealed with it: the plaintext
/// is then a zero byte (which no token starts with) followed by the JSON `{"dpop_jwk": <private JWK>, "token":
/// <token>}`, so the key lives only inside the sealed columns and no schema changes. Beside a refresh token go two lookup digests (for revocation notices
/// that name a token, ``Columns/refreshHash`` and ``Columns/refreshPrefixDigest``).
package struct TokenSealing: Sendable {
    /// The cipher the SQL stores seal tokens with: a key derived from the UTF-8 bytes of `secret` (`server.secret`),
    /// opening also what `previousSecrets` sealed (the one derivation `SignInServer.Stores.open` makes too, through
    /// its keyring).
    ///
    /// - Throws: `JOSEError` `weakKey` when a secret is shorter than 32 bytes.
    package static func cipher(secret: String, previousSecrets: [String], random: any SecureRandom) throws(JOSEError)
        -> TokenCipher
    {
        try SecretKeyring(current: secret, previous: previousSecrets).cipher(random: random)
    }

    /// Which token a sealed value holds.
    package enum Kind: String, Sendable {
        /// The access token column.
        case access = "access_token"
        /// The refresh token column.
        case refresh = "refresh_token"
    }

    /// The sealed columns of one token row, in the order `access_token, refresh_token,
    /// access_token_expires_at, scope, client_id`.
    package struct Columns: Sendable {
        /// The sealed access token.
        package let access: [UInt8]?
        /// The sealed refresh token.
        package let refresh: [UInt8]?
        /// The access token's expiry, seconds since 1970.
        package let expiresAt: Double?
        /// The granted scope.
        package let scope: String?
        /// The client the tokens were issued to, when not the provider's `client_id` (in clear).
        package let clientID: String?
        /// The refresh token's `base64(sha512(sha512(token)))` (what Google RISC sends), for lookup.
        package let refreshHash: String?
        /// The keyed digest of the refresh token's prefix (``prefixDigest(_:)``), for lookup; `nil` without a
        /// refresh token or for one shorter than the prefix.
        package let refreshPrefixDigest: [UInt8]?
    }

    /// The `TokenCipher.keyedDigest(_:purpose:)` purpose of the refresh token prefix index.
    static let prefixIndexPurpose = "authflow refresh token prefix index v1"

    /// The keyed digest stored for a refresh token prefix of `RefreshTokenIdentifier.prefixLength` characters:
    /// the prefix is never stored in clear, and the digest is useless without `server.secret`.
    package func prefixDigest(_ prefix: String) -> [UInt8] {
        cipher.keyedDigest(Array(prefix.utf8), purpose: Self.prefixIndexPurpose)
    }

    /// ``prefixDigest(_:)`` under every secret of the keyring, the current one first: a row indexed before a
    /// rotation is found until it is written again (which indexes it under the current secret).
    package func prefixDigests(_ prefix: String) -> [[UInt8]] {
        cipher.keyedDigests(Array(prefix.utf8), purpose: Self.prefixIndexPurpose)
    }

    /// The columns a token query selects first, in the order ``tokens(from:at:_:operation:)`` reads them.
    package static let columns = "access_token, refresh_token, access_token_expires_at, scope, client_id"

    let cipher: TokenCipher

    /// Seals with `cipher` (built from `server.secret`; from a `SecretKeyring`, it also opens what the previous
    /// secrets sealed, and each write seals under the current one).
    package init(cipher: TokenCipher) { self.cipher = cipher }

    /// The columns to write for `tokens` of `identity`.
    ///
    /// - Throws: `StoreError` `backendFailure` when encryption fails.
    package func columns(_ tokens: StoredTokens, for identity: IdentityKey, operation: String) throws(StoreError)
        -> Columns
    {
        Columns(
            access: try seal(
                tokens.accessToken, kind: .access, identity, dpopKey: tokens.dpopKey, operation: operation),
            refresh: try seal(
                tokens.refreshToken, kind: .refresh, identity, dpopKey: tokens.dpopKey, operation: operation),
            expiresAt: tokens.accessTokenExpiresAt?.timeIntervalSince1970, scope: tokens.scope,
            clientID: tokens.clientID,
            refreshHash: tokens.refreshToken.map(RefreshTokenIdentifier.sha512SHA512Digest(of:)),
            refreshPrefixDigest: tokens.refreshToken.flatMap(RefreshTokenIdentifier.prefix(of:)).map(prefixDigest))
    }

    /// Decodes the token columns starting at column `first` (see ``columns``) of a row of `identity`.
    ///
    /// - Throws: `StoreError` `corruptData` when a value does not decrypt (e.g. `server.secret` changed).
    package func tokens(
        from row: any StoreRow, at first: Int = 0, _ identity: IdentityKey, operation: String
    ) throws(StoreError) -> StoredTokens {
        let access = try openBound(row.optionalBytes(first), kind: .access, identity, operation: operation)
        let refresh = try openBound(row.optionalBytes(first + 1), kind: .refresh, identity, operation: operation)
        var tokens = StoredTokens(
            accessToken: access.token, refreshToken: refresh.token,
            accessTokenExpiresAt: try row.optionalDate(first + 2), scope: try row.optionalText(first + 3),
            clientID: try row.optionalText(first + 4))
        tokens.dpopKey = refresh.dpopKey ?? access.dpopKey
        return tokens
    }

    /// A sealed token column opened, with the DPoP key sealed beside the token when there is one.
    ///
    /// - Throws: `StoreError` `corruptData` as ``open(_:kind:_:operation:)``, or for an envelope that does not read.
    func openBound(_ sealed: [UInt8]?, kind: Kind, _ identity: IdentityKey, operation: String) throws(StoreError)
        -> (token: String?, dpopKey: JWK?)
    {
        guard let text = try open(sealed, kind: kind, identity, operation: operation) else { return (nil, nil) }
        guard text.utf8.first == 0 else { return (text, nil) }
        guard let envelope = try? JSONValue.parse(Array(text.utf8.dropFirst())),
            let token = envelope["token"]?.stringValue, let jwk = envelope["dpop_jwk"],
            let key = try? JWK(json: jwk), key.isPrivate
        else {
            throw StoreError(
                .corruptData,
                "expected the stored \(kind.rawValue) with its DPoP key, found an envelope that does not read",
                operation: operation)
        }
        return (token, key)
    }

    /// The tokens of a deleted row, or `nil` when they do not decrypt (they cannot be revoked then, and
    /// removing an identity must not depend on them).
    package func removedTokens(from row: (any StoreRow)?, _ identity: IdentityKey, operation: String)
        -> StoredTokens?
    {
        guard let row else { return nil }
        return try? tokens(from: row, identity, operation: operation)
    }

    func seal(_ token: String?, kind: Kind, _ identity: IdentityKey, dpopKey: JWK? = nil, operation: String)
        throws(StoreError) -> [UInt8]?
    {
        guard let token else { return nil }
        var plaintext = Array(token.utf8)
        if let dpopKey {
            plaintext =
                [0]
                + JSONValue.object(["dpop_jwk": dpopKey.exportPrivate(), "token": .string(token)]).serializedBytes()
        }
        do {
            return try cipher.seal(plaintext, associatedData: Self.associatedData(kind, identity))
        } catch {
            throw StoreError(
                .backendFailure, "expected to encrypt the \(kind.rawValue), found: \(error)", operation: operation)
        }
    }

    func open(_ sealed: [UInt8]?, kind: Kind, _ identity: IdentityKey, operation: String) throws(StoreError)
        -> String?
    {
        guard let sealed else { return nil }
        let plaintext: [UInt8]
        do {
            plaintext = try cipher.open(sealed, associatedData: Self.associatedData(kind, identity))
        } catch {
            throw StoreError(
                .corruptData,
                "expected the stored \(kind.rawValue) to decrypt under a configured secret for its identity, found "
                    + "\(error.code) (was server.secret changed without keeping the old one in server.previous_secrets, or the row altered?)",
                operation: operation)
        }
        guard let text = String(validating: plaintext, as: UTF8.self) else {
            throw StoreError(
                .corruptData, "expected the stored \(kind.rawValue) to be UTF-8, found other bytes",
                operation: operation)
        }
        return text
    }

    static func associatedData(_ kind: Kind, _ identity: IdentityKey) -> [UInt8] {
        Array("\(kind.rawValue)|\(identity.provider.utf8.count):\(identity.provider)|\(identity.subject)".utf8)
    }
}
