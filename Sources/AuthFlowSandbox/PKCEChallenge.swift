import AuthFlowJOSE

/// A code challenge received at an authorization endpoint (RFC 7636) and the check of its verifier.
struct PKCEChallenge: Sendable, Hashable {
    enum Method: String, Sendable {
        case s256 = "S256"
        case plain
    }

    let value: String
    let method: Method

    /// Parses a challenge and its method; `nil` method means RFC 7636's default, `plain`.
    /// Returns a description of the problem when the pair is malformed.
    static func parse(
        challenge: String, method: String?, acceptLowercaseS256: Bool = false
    ) -> Result<PKCEChallenge, PKCEProblem> {
        let parsedMethod: Method
        switch method {
        case nil, "plain"?: parsedMethod = .plain
        case "S256"?: parsedMethod = .s256
        case "s256"? where acceptLowercaseS256: parsedMethod = .s256
        case let other?: return .failure(.unsupportedMethod(other))
        }
        switch parsedMethod {
        case .s256:
            guard challenge.utf8.count == 43, challenge.utf8.allSatisfy(Self.isBase64URLByte) else {
                return .failure(.malformedChallenge("an S256 code_challenge is 43 base64url characters"))
            }
        case .plain:
            guard Self.isValidVerifier(challenge) else {
                return .failure(.malformedChallenge("a plain code_challenge is 43-128 characters of [A-Za-z0-9-._~]"))
            }
        }
        return .success(PKCEChallenge(value: challenge, method: parsedMethod))
    }

    /// Whether `verifier` is well-formed and hashes (or equals, for `plain`) to this challenge.
    func isSatisfied(by verifier: String) -> Bool {
        guard Self.isValidVerifier(verifier) else { return false }
        switch method {
        case .s256: return constantTimeEquals(PKCE.challenge(for: verifier), value)
        case .plain: return constantTimeEquals(verifier, value)
        }
    }

    /// RFC 7636 §4.1: 43 to 128 characters of `[A-Za-z0-9-._~]`.
    static func isValidVerifier(_ text: String) -> Bool {
        let count = text.utf8.count
        return count >= 43 && count <= 128 && text.utf8.allSatisfy(isUnreservedByte)
    }

    static func isUnreservedByte(_ byte: UInt8) -> Bool {
        isBase64URLByte(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
    }

    static func isBase64URLByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}

/// Why a code challenge was refused at the authorization endpoint.
enum PKCEProblem: Error, Sendable {
    case unsupportedMethod(String)
    case malformedChallenge(String)

    var description: String {
        switch self {
        case .unsupportedMethod: "code_challenge_method must be S256 or plain"
        case .malformedChallenge(let text): text
        }
    }
}

/// Compares two strings without an early exit on the first differing byte.
func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let a = Array(lhs.utf8)
    let b = Array(rhs.utf8)
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}
