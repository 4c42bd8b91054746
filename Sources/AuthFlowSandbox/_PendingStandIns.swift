// ============================================================================================
// TEMPORARY STAND-INS — DELETE THIS FILE WHEN AuthFlowJOSE IS MERGED.
//
// These declarations mirror the public API names fixed in CONTRACTS.md for AuthFlowJOSE so the
// sandbox can be written and unit-tested before that module exists.
// The "crypto" here is FAKE (an HMAC keyed by a secret that public keys also carry) and must
// never ship. They are `public` only because the sandbox's public signatures mention them.
// ============================================================================================

public import Foundation
import Synchronization

// MARK: - AuthFlowJOSE stand-ins

public struct JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let malformedToken = Code(rawValue: "malformedToken")
        public static let invalidBase64URL = Code(rawValue: "invalidBase64URL")
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        public static let algorithmNotAllowed = Code(rawValue: "algorithmNotAllowed")
        public static let invalidSignature = Code(rawValue: "invalidSignature")
        public static let keyNotFound = Code(rawValue: "keyNotFound")
        public static let invalidKey = Code(rawValue: "invalidKey")
        public static let issuerMismatch = Code(rawValue: "issuerMismatch")
        public static let audienceMismatch = Code(rawValue: "audienceMismatch")
        public static let tokenExpired = Code(rawValue: "tokenExpired")
        public static let nonceMismatch = Code(rawValue: "nonceMismatch")
        public static let missingClaim = Code(rawValue: "missingClaim")
        public static let issuedInFuture = Code(rawValue: "issuedInFuture")
    }
    public let code: Code
    public let message: String
    public var claim: String?
    public var keyID: String?
    public init(code: Code, message: String, claim: String? = nil, keyID: String? = nil) {
        self.code = code
        self.message = message
        self.claim = claim
        self.keyID = keyID
    }
    public var description: String { "\(code.rawValue): \(message)" }
}

public enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        var index = 0
        while index + 3 <= input.count {
            let n = (UInt32(input[index]) << 16) | (UInt32(input[index + 1]) << 8) | UInt32(input[index + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let n = UInt32(input[index]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = (UInt32(input[index]) << 16) | (UInt32(input[index + 1]) << 8)
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }
    public static func decode(_ text: some StringProtocol) throws(JOSEError) -> [UInt8] {
        var values: [UInt32] = []
        for byte in text.utf8 {
            guard let v = alphabet.firstIndex(of: byte) else {
                throw JOSEError(code: .invalidBase64URL, message: "bad character")
            }
            values.append(UInt32(v))
        }
        if values.count % 4 == 1 { throw JOSEError(code: .invalidBase64URL, message: "bad length") }
        var out: [UInt8] = []
        var index = 0
        while index < values.count {
            let chunk = values[index..<min(index + 4, values.count)]
            var n: UInt32 = 0
            for (i, v) in chunk.enumerated() { n |= v << (18 - 6 * UInt32(i)) }
            out.append(UInt8(n >> 16 & 255))
            if chunk.count > 2 { out.append(UInt8(n >> 8 & 255)) }
            if chunk.count > 3 { out.append(UInt8(n & 255)) }
            index += 4
        }
        return out
    }
}

public enum JSONValue: Sendable, Hashable {
    case null, bool(Bool), integer(Int64), double(Double), string(String)
    case array([JSONValue]), object([String: JSONValue])

    public static func parse(_ bytes: some Collection<UInt8>) throws(JOSEError) -> JSONValue {
        var parser = StandInJSONParser(bytes: Array(bytes))
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw JOSEError(code: .invalidJSON, message: "trailing") }
        return value
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
            return "{" + o.keys.sorted().map { Self.quote($0) + ":" + (o[$0] ?? .null).serialized() }.joined(separator: ",") + "}"
        }
    }
    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var int64Value: Int64? { if case .integer(let i) = self { return i } else { return nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
}

struct StandInJSONParser {
    let bytes: [UInt8]
    var index = 0
    init(bytes: [UInt8]) { self.bytes = bytes }
    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }
    func fail() -> JOSEError { JOSEError(code: .invalidJSON, message: "invalid JSON at \(index)") }
    mutating func value(depth: Int) throws(JOSEError) -> JSONValue {
        guard depth < 64 else { throw fail() }
        skipSpace()
        guard index < bytes.count else { throw fail() }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var object: [String: JSONValue] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
            while true {
                skipSpace()
                guard case .string(let key) = try value(depth: depth + 1) else { throw fail() }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail() }
                index += 1
                guard object[key] == nil else { throw fail() }
                object[key] = try value(depth: depth + 1)
                skipSpace()
                guard index < bytes.count else { throw fail() }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
                throw fail()
            }
        case UInt8(ascii: "["):
            index += 1
            var array: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
            while true {
                array.append(try value(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw fail() }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(array) }
                throw fail()
            }
        case UInt8(ascii: "\""):
            index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == UInt8(ascii: "\\") {
                    scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                    raw = []
                    index += 1
                    guard index < bytes.count else { throw fail() }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{c}")
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count,
                            let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
                            let s = Unicode.Scalar(v)
                        else { throw fail() }
                        index += 4
                        scalars.append(s)
                    default: scalars.append(Unicode.Scalar(e))
                    }
                } else {
                    raw.append(bytes[index])
                    index += 1
                }
            }
            guard index < bytes.count else { throw fail() }
            index += 1
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            return .string(String(scalars))
        case UInt8(ascii: "t"):
            guard bytes[index...].starts(with: Array("true".utf8)) else { throw fail() }
            index += 4
            return .bool(true)
        case UInt8(ascii: "f"):
            guard bytes[index...].starts(with: Array("false".utf8)) else { throw fail() }
            index += 5
            return .bool(false)
        case UInt8(ascii: "n"):
            guard bytes[index...].starts(with: Array("null".utf8)) else { throw fail() }
            index += 4
            return .null
        default:
            let start = index
            while index < bytes.count, Array("-+.eE0123456789".utf8).contains(bytes[index]) { index += 1 }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if let i = Int64(text) { return .integer(i) }
            if let d = Double(text) { return .double(d) }
            throw fail()
        }
    }
}

public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    case rs256 = "RS256", ps256 = "PS256", es256 = "ES256", edDSA = "EdDSA", hs256 = "HS256"
}

public protocol SecureRandom: Sendable { func bytes(_ count: Int) -> [UInt8] }
public struct SystemRandom: SecureRandom {
    public init() {}
    public func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
public protocol WallClock: Sendable { func now() -> Date }
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
public final class ManualClock: WallClock {
    let current: Mutex<Date>
    public init(_ start: Date) { current = Mutex(start) }
    public func now() -> Date { current.withLock { $0 } }
    public func advance(by seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    public func set(_ date: Date) { current.withLock { $0 = date } }
}

public struct JWK: Sendable, Hashable {
    public let keyType: String
    public let keyID: String?
    public let algorithm: JWSAlgorithm?
    public let use: String?
    let fakeSecret: [UInt8]
    public let isPrivate: Bool

    init(keyType: String, keyID: String?, algorithm: JWSAlgorithm?, fakeSecret: [UInt8], isPrivate: Bool) {
        self.keyType = keyType
        self.keyID = keyID
        self.algorithm = algorithm
        self.use = nil
        self.fakeSecret = fakeSecret
        self.isPrivate = isPrivate
    }
    public init(json: JSONValue) throws(JOSEError) {
        guard let kty = json["kty"]?.stringValue, let secret = json["fake"]?.stringValue else {
            throw JOSEError(code: .invalidKey, message: "not a stand-in key")
        }
        self.init(
            keyType: kty, keyID: json["kid"]?.stringValue,
            algorithm: json["alg"]?.stringValue.flatMap(JWSAlgorithm.init(rawValue:)),
            fakeSecret: try Base64URL.decode(secret), isPrivate: json["d"] != nil)
    }
    public init(jsonData: some Collection<UInt8>) throws(JOSEError) { try self.init(json: JSONValue.parse(jsonData)) }
    public init(pkcs8PEM: String, keyID: String? = nil) throws(JOSEError) {
        let body = pkcs8PEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let json = try JSONValue.parse(Base64URL.decode(body))
        let key = try JWK(json: json)
        self.init(
            keyType: key.keyType, keyID: keyID ?? key.keyID, algorithm: key.algorithm, fakeSecret: key.fakeSecret,
            isPrivate: true)
    }
    public static func generateP256(keyID: String? = nil) throws(JOSEError) -> JWK {
        JWK(keyType: "EC", keyID: keyID, algorithm: nil, fakeSecret: SystemRandom().bytes(32), isPrivate: true)
    }
    public static func generateRSA(bits: Int = 2048, keyID: String? = nil) throws(JOSEError) -> JWK {
        JWK(keyType: "RSA", keyID: keyID, algorithm: nil, fakeSecret: SystemRandom().bytes(32), isPrivate: true)
    }
    public func with(keyID: String?, algorithm: JWSAlgorithm? = nil, use: String? = nil) throws(JOSEError) -> JWK {
        JWK(keyType: keyType, keyID: keyID, algorithm: algorithm, fakeSecret: fakeSecret, isPrivate: isPrivate)
    }
    public static func symmetric(_ secret: [UInt8], keyID: String? = nil, algorithm: JWSAlgorithm? = nil) throws(JOSEError) -> JWK {
        JWK(keyType: "oct", keyID: keyID, algorithm: algorithm, fakeSecret: secret, isPrivate: true)
    }
    public var publicKey: JWK {
        JWK(keyType: keyType, keyID: keyID, algorithm: algorithm, fakeSecret: fakeSecret, isPrivate: false)
    }
    public func jsonValue() -> JSONValue {
        var object: [String: JSONValue] = ["kty": .string(keyType), "fake": .string(Base64URL.encode(fakeSecret))]
        if let keyID { object["kid"] = .string(keyID) }
        if keyType == "EC" { object["crv"] = .string("P-256") }
        return .object(object)
    }
    public func pkcs8PEM() throws(JOSEError) -> String {
        var json = jsonValue().objectValue ?? [:]
        json["d"] = .string("x")
        let body = Base64URL.encode(Array(JSONValue.object(json).serialized().utf8))
        return "-----BEGIN PRIVATE KEY-----\n\(body)\n-----END PRIVATE KEY-----\n"
    }
    public func thumbprint() -> String { Base64URL.encode(Digest.sha256(fakeSecret)) }
    public var defaultAlgorithm: JWSAlgorithm? { keyType == "RSA" ? .rs256 : keyType == "EC" ? .es256 : keyType == "oct" ? .hs256 : nil }
}

public struct JWKSet: Sendable {
    public let keys: [JWK]
    public init(keys: [JWK]) { self.keys = keys }
    public init(jsonData: some Collection<UInt8>) throws(JOSEError) {
        guard let array = try JSONValue.parse(jsonData)["keys"]?.arrayValue else {
            throw JOSEError(code: .invalidJSON, message: "no keys")
        }
        var keys: [JWK] = []
        for item in array { keys.append(try JWK(json: item)) }
        self.keys = keys
    }
    public func jsonValue() -> JSONValue { .object(["keys": .array(keys.map { $0.publicKey.jsonValue() })]) }
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
        guard let alg = algorithm ?? key.defaultAlgorithm else {
            throw JOSEError(code: .invalidKey, message: "no algorithm")
        }
        var header = extraHeader
        header["alg"] = .string(alg.rawValue)
        if let kid = key.keyID { header["kid"] = .string(kid) }
        let input =
            Base64URL.encode(Array(JSONValue.object(header).serialized().utf8)) + "."
            + Base64URL.encode(Array(payload))
        return input + "." + Base64URL.encode(Digest.hmacSHA256(key: key.fakeSecret, message: Array(input.utf8)))
    }
}

public struct JWSVerifier: Sendable {
    let allowed: Set<JWSAlgorithm>
    public init(allowedAlgorithms: Set<JWSAlgorithm>, maxTokenBytes: Int = 16 * 1024) { allowed = allowedAlgorithms }
    public func verify(_ compact: String, keys: JWKSet) throws(JOSEError) -> (
        header: JWSHeader, payload: [UInt8], key: JWK
    ) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw JOSEError(code: .malformedToken, message: "parts") }
        let header = try Self.header(of: compact)
        guard let alg = JWSAlgorithm(rawValue: header.algorithm), allowed.contains(alg) else {
            throw JOSEError(code: .algorithmNotAllowed, message: "alg")
        }
        guard let key = keys.keys.first(where: { $0.keyID == header.keyID }) else {
            throw JOSEError(code: .keyNotFound, message: "kid", keyID: header.keyID)
        }
        guard key.defaultAlgorithm == alg else { throw JOSEError(code: .algorithmNotAllowed, message: "key type") }
        let mac = Digest.hmacSHA256(key: key.fakeSecret, message: Array((parts[0] + "." + parts[1]).utf8))
        guard try Base64URL.decode(parts[2]) == mac else {
            throw JOSEError(code: .invalidSignature, message: "signature")
        }
        return (header, try Base64URL.decode(parts[1]), key)
    }
    public static func header(of compact: String) throws(JOSEError) -> JWSHeader {
        guard let first = compact.split(separator: ".", omittingEmptySubsequences: false).first,
            let object = try JSONValue.parse(Base64URL.decode(first)).objectValue,
            let alg = object["alg"]?.stringValue
        else { throw JOSEError(code: .malformedToken, message: "header") }
        return JWSHeader(
            algorithm: alg, keyID: object["kid"]?.stringValue, type: object["typ"]?.stringValue, json: object)
    }
}

public struct JWTClaims: Sendable {
    public let json: [String: JSONValue]
    public init(payload: some Collection<UInt8>) throws(JOSEError) {
        guard let object = try JSONValue.parse(payload).objectValue else {
            throw JOSEError(code: .invalidJSON, message: "claims")
        }
        json = object
    }
    public var issuer: String? { json["iss"]?.stringValue }
    public var subject: String? { json["sub"]?.stringValue }
    public var audience: [String] {
        if let single = json["aud"]?.stringValue { return [single] }
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
        case .bool(let b)?: return b
        case .string("true")?: return true
        case .string("false")?: return false
        default: return nil
        }
    }
}

public struct ClaimChecks: Sendable {
    public var issuers: Set<String>
    public var audiences: Set<String>
    public var nonce: String?
    public var leeway: Double
    public init(issuers: Set<String> = [], audiences: Set<String> = [], nonce: String? = nil, leeway: Double = 60) {
        self.issuers = issuers
        self.audiences = audiences
        self.nonce = nonce
        self.leeway = leeway
    }
    public func validate(_ claims: JWTClaims, now: Date) throws(JOSEError) {
        if !issuers.isEmpty, !issuers.contains(claims.issuer ?? "") {
            throw JOSEError(code: .issuerMismatch, message: "iss", claim: "iss")
        }
        if !audiences.isEmpty, !claims.audience.contains(where: audiences.contains) {
            throw JOSEError(code: .audienceMismatch, message: "aud", claim: "aud")
        }
        guard let exp = claims.expiresAt, Double(exp) + leeway > now.timeIntervalSince1970 else {
            throw JOSEError(code: .tokenExpired, message: "exp", claim: "exp")
        }
        guard let iat = claims.issuedAt, Double(iat) - leeway <= now.timeIntervalSince1970 else {
            throw JOSEError(code: .issuedInFuture, message: "iat", claim: "iat")
        }
        if let nonce, claims.nonce != nonce { throw JOSEError(code: .nonceMismatch, message: "nonce", claim: "nonce") }
    }
}

public struct JWTVerifier: Sendable {
    public let jws: JWSVerifier
    public let checks: ClaimChecks
    public init(allowedAlgorithms: Set<JWSAlgorithm>, checks: ClaimChecks, maxTokenBytes: Int = 16 * 1024) {
        jws = JWSVerifier(allowedAlgorithms: allowedAlgorithms)
        self.checks = checks
    }
    public func verify(_ token: String, keys: JWKSet, now: Date) throws(JOSEError) -> JWTClaims {
        let claims = try JWTClaims(payload: jws.verify(token, keys: keys).payload)
        try checks.validate(claims, now: now)
        return claims
    }
}

public struct PKCE: Sendable, Equatable {
    public let verifier: String
    public let challenge: String
    public var method: String { "S256" }
    public static func generate(random: some SecureRandom) -> PKCE {
        let verifier = Base64URL.encode(random.bytes(32))
        return PKCE(verifier: verifier, challenge: challenge(for: verifier))
    }
    init(verifier: String, challenge: String) {
        self.verifier = verifier
        self.challenge = challenge
    }
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Digest.sha256(Array(verifier.utf8)))
    }
}

public enum AppleClientSecret {
    public static let maximumLifetime: Int64 = 15_777_000
    public static func make(
        teamID: String, keyID: String, clientID: String, privateKey: JWK, issuedAt: Date, lifetime: Int64
    ) throws(JOSEError) -> String {
        let iat = Int64(issuedAt.timeIntervalSince1970)
        let claims: JSONValue = .object([
            "iss": .string(teamID), "sub": .string(clientID), "aud": .string("https://appleid.apple.com"),
            "iat": .integer(iat), "exp": .integer(iat + lifetime),
        ])
        let key = JWK(
            keyType: privateKey.keyType, keyID: keyID, algorithm: nil, fakeSecret: privateKey.fakeSecret,
            isPrivate: true)
        return try JWS.sign(payload: Array(claims.serialized().utf8), key: key, algorithm: .es256)
    }
}

public enum Digest {
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let k: [UInt32] = [
            0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
            0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
            0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
            0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
            0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
            0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
            0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
            0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
        ]
        var h: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        var message = Array(bytes)
        let bitLength = UInt64(message.count) * 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { message.append(UInt8(bitLength >> UInt64(shift) & 0xff)) }
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        for chunk in stride(from: 0, to: message.count, by: 64) {
            var w = [UInt32](repeating: 0, count: 64)
            for i in 0..<16 {
                let b = chunk + i * 4
                w[i] =
                    UInt32(message[b]) << 24 | UInt32(message[b + 1]) << 16 | UInt32(message[b + 2]) << 8
                    | UInt32(message[b + 3])
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            h = [h[0] &+ a, h[1] &+ b, h[2] &+ c, h[3] &+ d, h[4] &+ e, h[5] &+ f, h[6] &+ g, h[7] &+ hh]
        }
        return h.flatMap { [UInt8($0 >> 24), UInt8($0 >> 16 & 0xff), UInt8($0 >> 8 & 0xff), UInt8($0 & 0xff)] }
    }
    public static func hmacSHA256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var k = Array(key)
        if k.count > 64 { k = sha256(k) }
        k += [UInt8](repeating: 0, count: 64 - k.count)
        let inner = sha256(k.map { $0 ^ 0x36 } + Array(message))
        return sha256(k.map { $0 ^ 0x5c } + inner)
    }
}
