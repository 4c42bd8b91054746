/// The JWS algorithms AuthFlow implements (RFC 7518 §3, RFC 8037).
///
/// AuthFlow never lets a token's header pick one of these on its own: the verifier intersects
/// the header's `alg` with the caller's allow-list and with what the selected key permits.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    case rs384 = "RS384"
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    case rs512 = "RS512"
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt.
    case ps256 = "PS256"
    /// RSASSA-PSS with SHA-384, MGF1-SHA-384 and a 48-byte salt.
    case ps384 = "PS384"
    /// RSASSA-PSS with SHA-512, MGF1-SHA-512 and a 64-byte salt.
    case ps512 = "PS512"
    /// ECDSA on P-256 with SHA-256; signature is raw `r‖s`, 64 bytes.
    case es256 = "ES256"
    /// ECDSA on P-384 with SHA-384; signature is raw `r‖s`, 96 bytes.
    case es384 = "ES384"
    /// ECDSA on P-521 with SHA-512; signature is raw `r‖s`, 132 bytes.
    case es512 = "ES512"
    /// Ed25519 (RFC 8037).
    case edDSA = "EdDSA"
    /// HMAC with SHA-256; only for explicitly supplied symmetric keys.
    case hs256 = "HS256"
    /// HMAC with SHA-384; only for explicitly supplied symmetric keys.
    case hs384 = "HS384"
    /// HMAC with SHA-512; only for explicitly supplied symmetric keys.
    case hs512 = "HS512"

    /// The algorithms that use public keys (everything but HMAC).
    package static let asymmetric: Set<JWSAlgorithm> = Set(allCases.filter { !$0.isHMAC })

    /// Whether this is an HMAC algorithm (needs a shared secret, never a public key).
    package var isHMAC: Bool { self == .hs256 || self == .hs384 || self == .hs512 }

    /// A small number for each algorithm (0 to `allCases.count - 1`), for bit sets and tables.
    var ordinal: Int {
        switch self {
        case .rs256: 0
        case .rs384: 1
        case .rs512: 2
        case .ps256: 3
        case .ps384: 4
        case .ps512: 5
        case .es256: 6
        case .es384: 7
        case .es512: 8
        case .edDSA: 9
        case .hs256: 10
        case .hs384: 11
        case .hs512: 12
        }
    }

    /// The JWK `kty` this algorithm needs.
    var keyType: String {
        switch self {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: return "RSA"
        case .es256, .es384, .es512: return "EC"
        case .edDSA: return "OKP"
        case .hs256, .hs384, .hs512: return "oct"
        }
    }

    /// The hash size in bytes (for HMAC key lengths and PSS salts).
    var hashLength: Int {
        switch self {
        case .rs256, .ps256, .es256, .hs256: return 32
        case .rs384, .ps384, .es384, .hs384: return 48
        case .rs512, .ps512, .es512, .hs512: return 64
        case .edDSA: return 64
        }
    }

    /// The EC curve an ES algorithm needs.
    var curve: ECCurve? {
        switch self {
        case .es256: return .p256
        case .es384: return .p384
        case .es512: return .p521
        default: return nil
        }
    }
}

/// The NIST curves of the ES algorithms.
enum ECCurve: String, Sendable, Hashable {
    case p256 = "P-256"
    case p384 = "P-384"
    case p521 = "P-521"

    /// Bytes per coordinate (and per half of an `r‖s` signature).
    var coordinateLength: Int {
        switch self {
        case .p256: return 32
        case .p384: return 48
        case .p521: return 66
        }
    }

    var algorithm: JWSAlgorithm {
        switch self {
        case .p256: return .es256
        case .p384: return .es384
        case .p521: return .es512
        }
    }
}
