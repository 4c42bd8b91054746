// TEMPORARY STAND-INS — DELETE WHEN THE REAL MODULES ARE MERGED.
//
// These declarations mirror the names fixed in CONTRACTS.md for AuthFlowJOSE so the core compiles before those streams land. They are `public` only
// because the core's public signatures name them; nothing here is API. The crypto below is a
// test-grade imitation (no OpenSSL), never to be shipped.

public import Foundation
import Synchronization

// MARK: - AuthFlowJOSE stand-ins

public struct JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let malformedToken = Code(rawValue: "malformed_token")
        public static let invalidBase64URL = Code(rawValue: "invalid_base64url")
        public static let invalidJSON = Code(rawValue: "invalid_json")
        public static let algorithmNotAllowed = Code(rawValue: "algorithm_not_allowed")
        public static let unsignedTokenNotAllowed = Code(rawValue: "unsigned_token_not_allowed")
        public static let invalidSignature = Code(rawValue: "invalid_signature")
        public static let keyNotFound = Code(rawValue: "key_not_found")
        public static let invalidKey = Code(rawValue: "invalid_key")
        public static let missingClaim = Code(rawValue: "missing_claim")
        public static let invalidClaim = Code(rawValue: "invalid_claim")
        public static let issuerMismatch = Code(rawValue: "issuer_mismatch")
        public static let audienceMismatch = Code(rawValue: "audience_mismatch")
        public static let authorizedPartyMismatch = Code(rawValue: "authorized_party_mismatch")
        public static let tokenExpired = Code(rawValue: "token_expired")
        public static let tokenNotYetValid = Code(rawValue: "token_not_yet_valid")
        public static let issuedInFuture = Code(rawValue: "issued_in_future")
        public static let nonceMismatch = Code(rawValue: "nonce_mismatch")
        public static let jwksUnavailable = Code(rawValue: "jwks_unavailable")
        public static let cryptoFailure = Code(rawValue: "crypto_failure")
    }
    public let code: Code
    public let message: String
    public var claim: String?
    public var keyID: String?
    public init(_ code: Code, _ message: String, claim: String? = nil, keyID: String? = nil) {
        self.code = code
        self.message = message
        self.claim = claim
        self.keyID = keyID
    }
    public var description: String { "\(code.rawValue): \(message)" }
}

public enum Base64URL {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = String(text.compactMap { c -> Character? in
            switch c {
            case "+": return "-"
            case "/": return "_"
            case "=": return nil
            default: return c
            }
        })
        return text
    }
    public static func decode(_ text: some StringProtocol) throws(JOSEError) -> [UInt8] {
        var s = String(text.map { c -> Character in c == "-" ? "+" : (c == "_" ? "/" : c) })
        if s.contains("=") || s.contains("+") && text.contains("+") { throw JOSEError(.invalidBase64URL, "bad") }
        while s.count % 4 != 0 { s.append("=") }
        guard let data = Data(base64Encoded: s) else { throw JOSEError(.invalidBase64URL, "bad base64url") }
        return [UInt8](data)
    }
}

public enum JSONValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    case null, bool(Bool), integer(Int64), double(Double), string(String)
    case array([JSONValue]), object([String: JSONValue])
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }

    public static func parse(_ bytes: some Collection<UInt8>) throws(JOSEError) -> JSONValue {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw JOSEError(.invalidJSON, "invalid JSON")
        }
        return convert(object)
    }
    private static func convert(_ any: Any) -> JSONValue {
        switch any {
        case is NSNull: return .null
        case let s as String: return .string(s)
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            if let i = Int64(exactly: n.doubleValue), !"\(n)".contains(".") { return .integer(i) }
            return .double(n.doubleValue)
        case let a as [Any]: return .array(a.map(convert))
        case let d as [String: Any]: return .object(d.mapValues(convert))
        default: return .null
        }
    }
    public func serialized() -> String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return Self.quote(s)
        case .array(let a): return "[" + a.map { $0.serialized() }.joined(separator: ",") + "]"
        case .object(let o):
            return "{" + o.keys.sorted().map { Self.quote($0) + ":" + (o[$0] ?? .null).serialized() }
                .joined(separator: ",") + "}"
        }
    }
    private static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var int64Value: Int64? { if case .integer(let i) = self { return i }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
}

public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    case rs256 = "RS256", ps256 = "PS256", es256 = "ES256", edDSA = "EdDSA", hs256 = "HS256"
}

public protocol SecureRandom: Sendable { func bytes(_ count: Int) -> [UInt8] }
public struct SystemRandom: SecureRandom {
    public init() {}
    public func bytes(_ count: Int) -> [UInt8] {
        var g = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &g) }
    }
}
public protocol WallClock: Sendable { func now() -> Date }
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
public final class ManualClock: WallClock {
    private let current: Mutex<Date>
    public init(_ start: Date) { current = Mutex(start) }
    public func now() -> Date { current.withLock { $0 } }
    public func advance(by seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    public func set(_ date: Date) { current.withLock { $0 = date } }
}

public enum Digest {
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] { StandInSHA256.hash(Array(bytes)) }
    public static func hmacSHA256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var k = Array(key)
        if k.count > 64 { k = StandInSHA256.hash(k) }
        k += [UInt8](repeating: 0, count: 64 - k.count)
        let inner = StandInSHA256.hash(k.map { $0 ^ 0x36 } + Array(message))
        return StandInSHA256.hash(k.map { $0 ^ 0x5c } + inner)
    }
}

enum StandInSHA256 {
    static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        var data = message
        let bitLength = UInt64(message.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for i in (0..<8).reversed() { data.append(UInt8((bitLength >> (UInt64(i) * 8)) & 0xff)) }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                let b = chunk + i * 4
                w[i] = UInt32(data[b]) << 24 | UInt32(data[b + 1]) << 16 | UInt32(data[b + 2]) << 8 | UInt32(data[b + 3])
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
            for i in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
            }
            h[0] = h[0] &+ a; h[1] = h[1] &+ b; h[2] = h[2] &+ c; h[3] = h[3] &+ d
            h[4] = h[4] &+ e; h[5] = h[5] &+ f; h[6] = h[6] &+ g; h[7] = h[7] &+ hh
        }
        return h.flatMap { v in [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }
    }
}

public struct PKCE: Sendable, Equatable {
    public let verifier: String
    public let challenge: String
    public var method: String { "S256" }
    public static func generate(random: some SecureRandom) -> PKCE {
        let v = Base64URL.encode(random.bytes(32))
        return PKCE(v: v)
    }
    private init(v: String) {
        verifier = v
        challenge = PKCE.challenge(for: v)
    }
    public init(verifier: String) throws(JOSEError) {
        guard (43...128).contains(verifier.utf8.count) else { throw JOSEError(.invalidClaim, "verifier length") }
        self.init(v: verifier)
    }
    public static func challenge(for verifier: String) -> String { Base64URL.encode(Digest.sha256(Array(verifier.utf8))) }
}

/// Stand-in key: an HMAC secret posing as an asymmetric key (tests only, until JOSE lands).
public struct JWK: Sendable, Hashable {
    public func pkcs8PEM() throws(JOSEError) -> String {
        "-----BEGIN PRIVATE KEY-----\n" + keyType + ":" + Base64URL.encode(standInSecret) + "\n-----END PRIVATE KEY-----\n"
    }
    public let keyType: String
    public let keyID: String?
    public let algorithm: JWSAlgorithm?
    public let use: String?
    let standInSecret: [UInt8]
    public var isPrivate: Bool { true }
    public init(pkcs8PEM: String, keyID: String? = nil) throws(JOSEError) {
        let lines = pkcs8PEM.split(separator: "\n")
        guard lines.count == 3, lines[0] == "-----BEGIN PRIVATE KEY-----" else {
            throw JOSEError(.invalidKey, "not a PKCS#8 PEM")
        }
        let body = lines[1].split(separator: ":")
        guard body.count == 2 else { throw JOSEError(.invalidKey, "not a stand-in key") }
        let rsa = body[0] == "RSA"
        self.init(keyType: rsa ? "RSA" : "EC", keyID: keyID, algorithm: rsa ? .rs256 : .es256,
            secret: try Base64URL.decode(body[1]))
    }
    init(keyType: String, keyID: String?, algorithm: JWSAlgorithm?, secret: [UInt8]) {
        self.keyType = keyType
        self.keyID = keyID
        self.algorithm = algorithm
        self.use = "sig"
        self.standInSecret = secret
    }
    public static func generateRSA(bits: Int = 2048, keyID: String? = nil) throws(JOSEError) -> JWK {
        JWK(keyType: "RSA", keyID: keyID, algorithm: .rs256, secret: SystemRandom().bytes(32))
    }
    public static func generateP256(keyID: String? = nil) throws(JOSEError) -> JWK {
        JWK(keyType: "EC", keyID: keyID, algorithm: .es256, secret: SystemRandom().bytes(32))
    }
    public var publicKey: JWK { self }
    public var defaultAlgorithm: JWSAlgorithm? { algorithm }
}

public struct JWKSet: Sendable {
    public let keys: [JWK]
    public init(keys: [JWK]) { self.keys = keys }
}

public struct JWSHeader: Sendable {
    public let algorithm: String
    public let keyID: String?
    public let type: String?
    public let json: [String: JSONValue]
}

public enum JWS {
    public static func sign(
        payload: some Collection<UInt8>, key: JWK, algorithm: JWSAlgorithm? = nil,
        extraHeader: [String: JSONValue] = [:]
    ) throws(JOSEError) -> String {
        var header = extraHeader
        header["alg"] = .string((algorithm ?? key.algorithm ?? .rs256).rawValue)
        if let kid = key.keyID { header["kid"] = .string(kid) }
        let input = Base64URL.encode(Array(header.jsonValue.serialized().utf8)) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(Digest.hmacSHA256(key: key.standInSecret, message: Array(input.utf8)))
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    fileprivate var jsonValue: JSONValue { .object(self) }
}

public struct JWTClaims: Sendable {
    public let json: [String: JSONValue]
    public init(payload: some Collection<UInt8>) throws(JOSEError) {
        guard case .object(let o) = try JSONValue.parse(payload) else { throw JOSEError(.invalidJSON, "claims") }
        json = o
    }
    public var issuer: String? { json["iss"]?.stringValue }
    public var subject: String? { json["sub"]?.stringValue }
    public var audience: [String] {
        if let s = json["aud"]?.stringValue { return [s] }
        return json["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
    public var authorizedParty: String? { json["azp"]?.stringValue }
    public var nonce: String? { json["nonce"]?.stringValue }
    public var expiresAt: Int64? { json["exp"]?.int64Value }
    public var notBefore: Int64? { json["nbf"]?.int64Value }
    public var issuedAt: Int64? { json["iat"]?.int64Value }
    public subscript(claim: String) -> JSONValue? { json[claim] }
    public func string(_ claim: String) -> String? { json[claim]?.stringValue }
    public func flag(_ claim: String) -> Bool? {
        switch json[claim] {
        case .bool(let b): return b
        case .string("true"): return true
        case .string("false"): return false
        default: return nil
        }
    }
}

public struct ClaimChecks: Sendable {
    public var issuers: Set<String>
    public var audiences: Set<String>
    public var nonce: String?
    public var leeway: Double = 60
    public var requireIssuedAt = true
    public init(issuers: Set<String> = [], audiences: Set<String> = [], nonce: String? = nil, leeway: Double = 60) {
        self.issuers = issuers
        self.audiences = audiences
        self.nonce = nonce
        self.leeway = leeway
    }
    public func validate(_ claims: JWTClaims, now: Date) throws(JOSEError) {
        guard let iss = claims.issuer else { throw JOSEError(.missingClaim, "iss", claim: "iss") }
        guard issuers.contains(iss) else { throw JOSEError(.issuerMismatch, "iss", claim: "iss") }
        let aud = claims.audience
        guard aud.contains(where: audiences.contains) else { throw JOSEError(.audienceMismatch, "aud", claim: "aud") }
        if aud.count > 1 {
            guard let azp = claims.authorizedParty, audiences.contains(azp) else {
                throw JOSEError(.authorizedPartyMismatch, "azp", claim: "azp")
            }
        }
        let t = now.timeIntervalSince1970
        guard let exp = claims.expiresAt else { throw JOSEError(.missingClaim, "exp", claim: "exp") }
        if Double(exp) + leeway <= t { throw JOSEError(.tokenExpired, "exp", claim: "exp") }
        if let nbf = claims.notBefore, Double(nbf) - leeway > t {
            throw JOSEError(.tokenNotYetValid, "nbf", claim: "nbf")
        }
        if let iat = claims.issuedAt {
            if Double(iat) - leeway > t { throw JOSEError(.issuedInFuture, "iat", claim: "iat") }
        } else if requireIssuedAt {
            throw JOSEError(.missingClaim, "iat", claim: "iat")
        }
        if let nonce {
            guard let found = claims.nonce else { throw JOSEError(.missingClaim, "nonce", claim: "nonce") }
            guard found == nonce else { throw JOSEError(.nonceMismatch, "nonce", claim: "nonce") }
        }
    }
}

public struct JWTVerifier: Sendable {
    let allowedAlgorithms: Set<JWSAlgorithm>
    let checks: ClaimChecks
    public init(allowedAlgorithms: Set<JWSAlgorithm>, checks: ClaimChecks, maxTokenBytes: Int = 16 * 1024) {
        self.allowedAlgorithms = allowedAlgorithms
        self.checks = checks
    }
    public func verify(_ token: String, keys: JWKSet, now: Date) throws(JOSEError) -> JWTClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw JOSEError(.malformedToken, "parts") }
        guard case .object(let header) = try JSONValue.parse(try Base64URL.decode(parts[0])) else {
            throw JOSEError(.malformedToken, "header")
        }
        let alg = header["alg"]?.stringValue ?? ""
        if alg == "none" { throw JOSEError(.unsignedTokenNotAllowed, "none") }
        guard let a = JWSAlgorithm(rawValue: alg), allowedAlgorithms.contains(a), a != .hs256 else {
            throw JOSEError(.algorithmNotAllowed, "alg")
        }
        let kid = header["kid"]?.stringValue
        guard let key = keys.keys.first(where: { $0.keyID == kid }) else {
            throw JOSEError(.keyNotFound, "kid", keyID: kid)
        }
        guard key.algorithm == a else { throw JOSEError(.algorithmNotAllowed, "alg/key") }
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        let signature = try Base64URL.decode(parts[2])
        guard signature == Digest.hmacSHA256(key: key.standInSecret, message: input) else {
            throw JOSEError(.invalidSignature, "signature")
        }
        let claims = try JWTClaims(payload: try Base64URL.decode(parts[1]))
        try checks.validate(claims, now: now)
        return claims
    }
}

public struct JWKSFetchResult: Sendable {
    public let body: [UInt8]
    public let maxAge: Int?
    public init(body: [UInt8], maxAge: Int?) {
        self.body = body
        self.maxAge = maxAge
    }
    public init(body: [UInt8], cacheControl: String?) {
        self.body = body
        self.maxAge = nil
    }
}

public actor JWKSCache {
    private let fetch: @Sendable () async throws -> JWKSFetchResult
    private var current: JWKSet?
    public private(set) var fetchCount = 0
    private var lastUnknownKeyRefetch: Date?
    private let clock: any WallClock
    public init(clock: any WallClock, minimumTTL: Double = 60, maximumTTL: Double = 86_400, defaultTTL: Double = 300,
                refetchInterval: Double = 10, fetch: @escaping @Sendable () async throws -> JWKSFetchResult) {
        self.clock = clock
        self.fetch = fetch
    }
    public func keySet() async throws(JOSEError) -> JWKSet {
        if let current { return current }
        return try await refresh()
    }
    private func refresh() async throws(JOSEError) -> JWKSet {
        fetchCount += 1
        do {
            let result = try await fetch()
            let set = try StandInKeys.decode(result.body)
            current = set
            return set
        } catch {
            if let current { return current }
            throw JOSEError(.jwksUnavailable, "unavailable")
        }
    }
    public func verify(_ token: String, with verifier: JWTVerifier) async throws(JOSEError) -> JWTClaims {
        let keys = try await keySet()
        do throws(JOSEError) {
            return try verifier.verify(token, keys: keys, now: clock.now())
        } catch {
            guard error.code == .keyNotFound else { throw error }
            let now = clock.now()
            if let last = lastUnknownKeyRefetch, now.timeIntervalSince(last) < 10 { throw error }
            lastUnknownKeyRefetch = now
            let fresh = try await refresh()
            return try verifier.verify(token, keys: fresh, now: clock.now())
        }
    }
}

/// Stand-in JWKS wire format: {"keys":[{"kty","kid","alg","k"}]} with the stand-in secret in "k".
public enum StandInKeys {
    public static func encode(_ set: JWKSet) -> [UInt8] {
        let keys: [JSONValue] = set.keys.map { key in
            var o: [String: JSONValue] = ["kty": .string(key.keyType), "k": .string(Base64URL.encode(key.standInSecret))]
            if let kid = key.keyID { o["kid"] = .string(kid) }
            if let alg = key.algorithm { o["alg"] = .string(alg.rawValue) }
            return .object(o)
        }
        return Array(JSONValue.object(["keys": .array(keys)]).serialized().utf8)
    }
    static func decode(_ bytes: [UInt8]) throws(JOSEError) -> JWKSet {
        guard let keys = try JSONValue.parse(bytes)["keys"]?.arrayValue else { throw JOSEError(.invalidJSON, "keys") }
        var out: [JWK] = []
        for k in keys {
            out.append(JWK(keyType: k["kty"]?.stringValue ?? "RSA", keyID: k["kid"]?.stringValue,
                algorithm: k["alg"]?.stringValue.flatMap(JWSAlgorithm.init(rawValue:)),
                secret: try Base64URL.decode(k["k"]?.stringValue ?? "")))
        }
        return JWKSet(keys: out)
    }
}

public enum AppleClientSecret {
    public static let maximumLifetime: Int64 = 15_777_000
    public static func make(
        teamID: String, keyID: String, clientID: String, privateKey: JWK, issuedAt: Date, lifetime: Int64
    ) throws(JOSEError) -> String {
        let iat = Int64(issuedAt.timeIntervalSince1970)
        let claims: [String: JSONValue] = [
            "iss": .string(teamID), "iat": .integer(iat), "exp": .integer(iat + lifetime),
            "aud": .string("https://appleid.apple.com"), "sub": .string(clientID),
        ]
        let key = JWK(keyType: "EC", keyID: keyID, algorithm: .es256, secret: privateKey.standInSecret)
        return try JWS.sign(payload: Array(JSONValue.object(claims).serialized().utf8), key: key, algorithm: .es256)
    }
}

public struct JWSVerifier: Sendable {
    public static func header(of compact: String) throws(JOSEError) -> JWSHeader {
        guard let first = compact.split(separator: ".").first,
            case .object(let json) = try JSONValue.parse(try Base64URL.decode(first))
        else { throw JOSEError(.malformedToken, "header") }
        return JWSHeader(
            algorithm: json["alg"]?.stringValue ?? "", keyID: json["kid"]?.stringValue,
            type: json["typ"]?.stringValue, json: json)
    }
}
