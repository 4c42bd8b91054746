import AuthFlowJOSE
package import AuthFlowJSON

/// The size caps of the response members (decoded bytes).
package enum WebAuthnLimits {
    /// Credential ids (WebAuthn Level 3 §7.1 step 24).
    package static let credentialID = 1023
    /// `clientDataJSON`.
    package static let clientDataJSON = 16 * 1024
    /// `attestationObject` (its CBOR is decoded under the same cap).
    package static let attestationObject = 64 * 1024
    /// `authenticatorData` of an assertion.
    package static let authenticatorData = 16 * 1024
    /// An assertion signature (RSA-4096 is 512 bytes).
    package static let signature = 1024
    /// A user handle (at most 64 bytes, WebAuthn Level 3 §5.4.3).
    package static let userHandle = 64
    /// The transports listed, and the length of each.
    package static let transports = 16
    static let transportLength = 64
}

/// Reading the members of RegistrationResponseJSON and AuthenticationResponseJSON (WebAuthn Level 3
/// §5.1): objects, strings and strict unpadded base64url, each with its path in the message.
enum CredentialJSON {
    static func object(_ value: JSONValue?, _ path: String) throws(WebAuthnError) -> [String: JSONValue] {
        guard let members = value?.objectValue else {
            throw WebAuthnError(.malformedCredential, "expected \(path) to be a JSON object, found \(kind(value))")
        }
        return members
    }

    static func string(_ members: [String: JSONValue], _ name: String, in path: String) throws(WebAuthnError)
        -> String
    {
        guard let text = members[name]?.stringValue else {
            throw WebAuthnError(
                .malformedCredential, "expected \(path).\(name) to be a string, found \(kind(members[name]))")
        }
        return text
    }

    /// A base64url member of at most `maximum` decoded bytes; `tooLong` is the code for a longer one.
    static func binary(
        _ members: [String: JSONValue], _ name: String, in path: String, maximum: Int,
        tooLong: WebAuthnError.Code = .malformedCredential
    ) throws(WebAuthnError) -> [UInt8] {
        let text = try string(members, name, in: path)
        return try decode(text, "\(path).\(name)", maximum: maximum, tooLong: tooLong)
    }

    static func decode(_ text: String, _ path: String, maximum: Int, tooLong: WebAuthnError.Code)
        throws(WebAuthnError) -> [UInt8]
    {
        // Refused before decoding: the longest base64url text of `maximum` bytes.
        guard text.utf8.count <= (maximum * 4 + 2) / 3 else {
            throw WebAuthnError(
                tooLong, "expected \(path) of at most \(maximum) bytes, found \(text.utf8.count) base64url characters")
        }
        do {
            return try Base64URL.decode(text)
        } catch {
            throw WebAuthnError(.malformedCredential, "expected \(path) in strict base64url, found: \(error.message)")
        }
    }

    /// `id` and `rawId`: the same credential id, non-empty and at most 1,023 bytes.
    static func credentialID(_ members: [String: JSONValue]) throws(WebAuthnError) -> (id: String, raw: [UInt8]) {
        let id = try string(members, "id", in: "credential")
        let raw = try binary(
            members, "rawId", in: "credential", maximum: WebAuthnLimits.credentialID, tooLong: .credentialIDTooLong)
        guard !raw.isEmpty else {
            throw WebAuthnError(.malformedCredential, "expected a non-empty credential.rawId, found an empty one")
        }
        let decoded = try decode(
            id, "credential.id", maximum: WebAuthnLimits.credentialID, tooLong: .credentialIDTooLong)
        guard decoded == raw else {
            throw WebAuthnError(
                .credentialIDMismatch, "expected credential.id to encode credential.rawId, found another id")
        }
        let type = try string(members, "type", in: "credential")
        guard type == "public-key" else {
            throw WebAuthnError(.malformedCredential, "expected credential.type \"public-key\", found another type")
        }
        return (id, raw)
    }

    static func transports(_ members: [String: JSONValue]) throws(WebAuthnError) -> [String] {
        guard let value = members["transports"], value != .null else { return [] }
        guard let elements = value.arrayValue, elements.count <= WebAuthnLimits.transports else {
            throw WebAuthnError(
                .malformedCredential,
                "expected credential.response.transports to be an array of at most \(WebAuthnLimits.transports) strings, found \(kind(value))"
            )
        }
        var transports: [String] = []
        for element in elements {
            guard let text = element.stringValue, !text.isEmpty, text.utf8.count <= WebAuthnLimits.transportLength,
                text.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
            else {
                throw WebAuthnError(
                    .malformedCredential,
                    "expected each transport to be a short printable ASCII string, found \(kind(element))")
            }
            if !transports.contains(text) { transports.append(text) }
        }
        return transports
    }

    static func kind(_ value: JSONValue?) -> String {
        switch value {
        case nil: return "none"
        case .null?: return "null"
        case .bool?: return "a boolean"
        case .integer?, .double?: return "a number"
        case .string?: return "a string"
        case .array?: return "an array"
        case .object?: return "an object"
        }
    }
}

/// RegistrationResponseJSON (WebAuthn Level 3 §5.1): what `credential.toJSON()` gives after
/// `navigator.credentials.create()`.
package struct RegistrationResponse: Sendable, Equatable {
    /// `id`: the credential id in base64url.
    package var id: String
    /// `rawId`, decoded.
    package var rawID: [UInt8]
    /// `response.clientDataJSON`, decoded (the exact bytes the authenticator's signature covers).
    package var clientDataJSON: [UInt8]
    /// `response.attestationObject`, decoded.
    package var attestationObject: [UInt8]
    /// `response.transports` (duplicates dropped).
    package var transports: [String]

    /// Reads the JSON form strictly: `id`, `rawId` (the same id, at most 1,023 bytes), `type`
    /// `public-key`, and `response` with `clientDataJSON` and `attestationObject` in strict base64url.
    /// Other members (`clientExtensionResults`, `authenticatorAttachment`, the response's convenience
    /// members) are not read.
    /// - Throws: `WebAuthnError` (`malformed_credential`, `credential_id_too_long`,
    ///   `credential_id_mismatch`, `malformed_cbor` for an attestation object over the cap).
    package static func parse(_ json: JSONValue) throws(WebAuthnError) -> Self {
        let members = try CredentialJSON.object(json, "credential")
        let (id, rawID) = try CredentialJSON.credentialID(members)
        let response = try CredentialJSON.object(members["response"], "credential.response")
        let path = "credential.response"
        return Self(
            id: id, rawID: rawID,
            clientDataJSON: try CredentialJSON.binary(
                response, "clientDataJSON", in: path, maximum: WebAuthnLimits.clientDataJSON),
            attestationObject: try CredentialJSON.binary(
                response, "attestationObject", in: path, maximum: WebAuthnLimits.attestationObject,
                tooLong: .malformedCBOR),
            transports: try CredentialJSON.transports(response))
    }
}

/// AuthenticationResponseJSON (WebAuthn Level 3 §5.1): what `credential.toJSON()` gives after
/// `navigator.credentials.get()`.
package struct AuthenticationResponse: Sendable, Equatable {
    /// `id`: the credential id in base64url.
    package var id: String
    /// `rawId`, decoded.
    package var rawID: [UInt8]
    /// `response.clientDataJSON`, decoded.
    package var clientDataJSON: [UInt8]
    /// `response.authenticatorData`, decoded.
    package var authenticatorData: [UInt8]
    /// `response.signature`, decoded.
    package var signature: [UInt8]
    /// `response.userHandle`, decoded; `nil` when absent, `null` or empty.
    package var userHandle: [UInt8]?

    /// Reads the JSON form strictly, as ``RegistrationResponse/parse(_:)`` does, with
    /// `authenticatorData`, `signature` and the optional `userHandle` (at most 64 bytes).
    /// - Throws: `WebAuthnError` (`malformed_credential`, `credential_id_too_long`,
    ///   `credential_id_mismatch`, `malformed_authenticator_data` for authenticator data over the cap).
    package static func parse(_ json: JSONValue) throws(WebAuthnError) -> Self {
        let members = try CredentialJSON.object(json, "credential")
        let (id, rawID) = try CredentialJSON.credentialID(members)
        let response = try CredentialJSON.object(members["response"], "credential.response")
        let path = "credential.response"
        var userHandle: [UInt8]?
        if let value = response["userHandle"], value != .null {
            let decoded = try CredentialJSON.binary(
                response, "userHandle", in: path, maximum: WebAuthnLimits.userHandle)
            userHandle = decoded.isEmpty ? nil : decoded
        }
        return Self(
            id: id, rawID: rawID,
            clientDataJSON: try CredentialJSON.binary(
                response, "clientDataJSON", in: path, maximum: WebAuthnLimits.clientDataJSON),
            authenticatorData: try CredentialJSON.binary(
                response, "authenticatorData", in: path, maximum: WebAuthnLimits.authenticatorData,
                tooLong: .malformedAuthenticatorData),
            signature: try CredentialJSON.binary(response, "signature", in: path, maximum: WebAuthnLimits.signature),
            userHandle: userHandle)
    }
}
