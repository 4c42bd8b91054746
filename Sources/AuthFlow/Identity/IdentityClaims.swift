package import AuthFlowJOSE

/// Small helpers plugins use to read identity members from claims or userinfo JSON.
package enum IdentityClaims {
    /// The JSON object of the first userinfo response, for an ``IdentityStrategy/identity(fromUserinfo:provider:)``.
    ///
    /// - Throws: ``SignInError`` with code `userinfo_error` when there is no response or it is not an object.
    package static func userinfoObject(_ responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> [String: JSONValue]
    {
        guard let first = responses.first else {
            throw SignInError(
                .userinfoError, "expected a profile from the userinfo endpoint, found none", provider: provider.name)
        }
        guard let object = first.objectValue else {
            throw SignInError(
                .userinfoError, "expected a JSON object from the userinfo endpoint, found another JSON value",
                provider: provider.name)
        }
        return object
    }

    /// A boolean that may arrive as JSON `true`/`false` or as the strings `"true"`/`"false"` (Apple).
    package static func flag(_ value: JSONValue?) -> Bool? {
        switch value {
        case .bool(let flag)?: flag
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
    }

    /// `name`, or `given_name` and `family_name` joined by a space, or `nil`.
    package static func displayName(_ object: [String: JSONValue]) -> String? {
        if let name = object["name"]?.stringValue, !name.isEmpty { return name }
        let parts = [object["given_name"]?.stringValue, object["family_name"]?.stringValue]
            .compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// The non-empty `sub` of verified id_token claims.
    ///
    /// - Throws: ``SignInError`` `id_token_invalid` naming `sub` when it is missing or empty.
    package static func subject(ofIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError) -> String {
        guard let subject = claims.subject, !subject.isEmpty else {
            throw SignInError(
                .idTokenInvalid, "expected a non-empty 'sub' claim in the id_token, found none",
                provider: provider.name, claim: "sub")
        }
        return subject
    }

    /// The identity in verified id_token claims under `subject`: the standard `email`, `email_verified`
    /// (`true` or `"true"`) and display name, with `groups` when the provider names them in a claim of its own.
    package static func identity(
        fromIDToken claims: JWTClaims, subject: String, provider: ResolvedProvider, groups: [String] = []
    ) -> VerifiedIdentity {
        let raw = claims.json  // built from the token's bytes on each read: read once
        return VerifiedIdentity(
            provider: provider.name, subject: subject, email: claims.string("email"),
            emailVerified: claims.flag("email_verified") ?? false, name: displayName(raw), source: .idToken,
            rawClaims: raw, groups: groups)
    }
}
