import AuthFlowJOSE
import Foundation

/// How a provider names one refresh token without sending it (Google RISC `token-revoked`: the subject's
/// `token_identifier_alg` and `token`), to find the identity it is stored for
/// (``TokenStore/identity(provider:refreshToken:)``).
public enum RefreshTokenIdentifier: Sendable, Hashable {
    /// `prefix`: the token's first `prefixLength` (16) characters.
    case prefix(String)
    /// `hash_base64_sha512_sha512`: standard base64 of SHA-512 of SHA-512 of the token's UTF-8 bytes.
    case sha512SHA512(String)

    /// How many leading characters of a token the `prefix` form names.
    package static let prefixLength = 16

    /// The identifier a provider sent as `algorithm` (`prefix` or `hash_base64_sha512_sha512`) and `value`,
    /// or `nil` for another algorithm, an empty value or a prefix of other than ``prefixLength`` characters.
    package init?(algorithm: String, value: String) {
        switch algorithm {
        case "prefix" where value.count == Self.prefixLength:
            self = .prefix(value)
        case "hash_base64_sha512_sha512" where !value.isEmpty && value.utf8.count <= 128:
            self = .sha512SHA512(value)
        default:
            return nil
        }
    }

    /// `base64(sha512(sha512(token)))`, the value of the `hash_base64_sha512_sha512` form for `token`.
    package static func sha512SHA512Digest(of token: String) -> String {
        Data(Digest.sha512(Digest.sha512(Array(token.utf8)))).base64EncodedString()
    }

    /// The first ``prefixLength`` characters of `token`, or `nil` when it is shorter (such a token cannot be
    /// named by prefix).
    package static func prefix(of token: String) -> String? {
        token.count >= prefixLength ? String(token.prefix(prefixLength)) : nil
    }

    /// Whether this identifier names `token`, compared in constant time.
    public func matches(_ token: String) -> Bool {
        switch self {
        case .prefix(let prefix):
            guard let stored = Self.prefix(of: token) else { return false }
            return ConstantTime.equals(stored, prefix)
        case .sha512SHA512(let digest):
            return ConstantTime.equals(Self.sha512SHA512Digest(of: token), digest)
        }
    }
}
