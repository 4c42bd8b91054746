import AuthFlowJOSE
import AuthFlowJSON

/// `clientDataJSON` (WebAuthn Level 3 §5.8.1), parsed as JSON (not by the limited verification algorithm
/// of §5.8.1.2, which is for parsers without JSON): the members the ceremonies check.
struct CollectedClientData: Sendable, Equatable {
    /// `webauthn.create` or `webauthn.get`.
    var type: String
    /// The challenge, decoded from base64url.
    var challenge: [UInt8]
    /// The origin, as the client reported it.
    var origin: String
    /// `crossOrigin`; false when absent.
    var crossOrigin: Bool

    /// Parses strict JSON: an object with string `type`, `challenge` (strict base64url) and `origin`, and
    /// `crossOrigin` a boolean when present. Other members (`topOrigin`, `tokenBinding`, extra data) are
    /// not read.
    static func parse(_ bytes: [UInt8]) throws(WebAuthnError) -> Self {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw WebAuthnError(.malformedClientData, "expected clientDataJSON to be JSON, found: \(error.message)")
        }
        guard let members = json.objectValue else {
            throw WebAuthnError(
                .malformedClientData, "expected clientDataJSON to be an object, found \(CredentialJSON.kind(json))")
        }
        func string(_ name: String) throws(WebAuthnError) -> String {
            guard let text = members[name]?.stringValue else {
                throw WebAuthnError(
                    .malformedClientData,
                    "expected clientDataJSON.\(name) to be a string, found \(CredentialJSON.kind(members[name]))")
            }
            return text
        }
        let type = try string("type")
        let challengeText = try string("challenge")
        let origin = try string("origin")
        let challenge: [UInt8]
        do {
            challenge = try Base64URL.decode(challengeText)
        } catch {
            throw WebAuthnError(
                .malformedClientData, "expected clientDataJSON.challenge in strict base64url, found: \(error.message)")
        }
        var crossOrigin = false
        if let value = members["crossOrigin"], value != .null {
            guard let flag = value.boolValue else {
                throw WebAuthnError(
                    .malformedClientData,
                    "expected clientDataJSON.crossOrigin to be a boolean, found \(CredentialJSON.kind(value))")
            }
            crossOrigin = flag
        }
        return Self(type: type, challenge: challenge, origin: origin, crossOrigin: crossOrigin)
    }

    /// Steps 7 to 10 of §7.1 and 10 to 13 of §7.2: the type, the challenge (compared in constant time),
    /// the origin exactly among the relying party's, and `crossOrigin` not true.
    func check(type expected: String, challenge: [UInt8], relyingParty: WebAuthnRelyingParty) throws(WebAuthnError) {
        guard type == expected else {
            throw WebAuthnError(
                .wrongCeremonyType, "expected clientDataJSON.type \"\(expected)\", found \"\(Self.printable(type))\"")
        }
        guard ConstantTime.equals(self.challenge, challenge) else {
            throw WebAuthnError(
                .challengeMismatch, "expected clientDataJSON.challenge to be the ceremony's challenge, found another")
        }
        guard relyingParty.origins.contains(origin) else {
            throw WebAuthnError(
                .originMismatch,
                "expected clientDataJSON.origin to be one of \(relyingParty.origins), found \"\(Self.printable(origin))\""
            )
        }
        guard !crossOrigin else {
            throw WebAuthnError(.crossOrigin, "expected clientDataJSON.crossOrigin false or absent, found true")
        }
    }

    /// Client-supplied text for a message: at most 100 printable ASCII characters, others as `?`.
    static func printable(_ text: String) -> String {
        let shown = text.unicodeScalars.prefix(100).map {
            $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?"
        }
        return String(shown) + (text.unicodeScalars.count > 100 ? "…" : "")
    }
}
