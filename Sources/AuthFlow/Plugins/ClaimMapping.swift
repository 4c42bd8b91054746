import AuthFlowJOSE

/// Where an identity's members come from in id_token claims or userinfo JSON (`providers.NAME.claims`).
///
/// Each member is a claim name or a dotted path into nested objects (`data.id`); `email_verified` may also be
/// the literal `true` or `false` for a provider whose emails are verified (or never) by policy. A member left
/// out keeps its standard claim: `sub`, `email`, `email_verified` (`true` or `"true"`), `name` (else
/// `given_name` and `family_name`) and `groups` (read only when it is an array of strings); but a mapped
/// `email` is verified only through a mapped `email_verified` (a path or a literal), never the standard claim.
/// A mapped path that is missing or holds the wrong type refuses the sign-in with `claim_mapping_failed` naming
/// the path; a numeric subject is taken as its decimal string.
public struct ClaimMapping: Sendable, Hashable {
    /// A claim name or a dotted path of object members.
    package struct Path: Sendable, Hashable, CustomStringConvertible {
        /// The member names, outermost first.
        package let components: [String]

        /// Parses `data.id`; `nil` when a component is empty.
        package init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
            components = parts
        }

        /// The dotted form.
        package var description: String { components.joined(separator: ".") }

        /// The value at this path, or `nil` when a member is missing (or JSON `null`) or a parent is not an object.
        package func value(in object: [String: JSONValue]) -> JSONValue? {
            var current: JSONValue = .object(object)
            for component in components {
                guard let next = current.objectValue?[component], next != .null else { return nil }
                current = next
            }
            return current
        }
    }

    /// Where `email_verified` comes from.
    package enum Verification: Sendable, Hashable {
        /// A claim holding `true`/`false` (or the strings `"true"`/`"false"`).
        case claim(Path)
        /// A policy: every email of this provider is verified (`true`) or none is (`false`).
        case always(Bool)
    }

    /// `claims.subject`; `nil` reads `sub`.
    package var subject: Path?
    /// `claims.email`; `nil` reads `email`.
    package var email: Path?
    /// `claims.email_verified`; `nil` reads `email_verified` when ``email`` is `nil`, and leaves a mapped email
    /// unverified.
    package var emailVerified: Verification?
    /// `claims.name`; `nil` reads `name`, else `given_name` and `family_name`.
    package var name: Path?
    /// `claims.groups`; `nil` reads `groups` when it is an array of strings.
    package var groups: Path?

    /// The standard mapping (every member left out).
    package static let standard = ClaimMapping()

    /// Creates a mapping; members left `nil` keep their standard claim.
    package init(
        subject: Path? = nil, email: Path? = nil, emailVerified: Verification? = nil, name: Path? = nil,
        groups: Path? = nil
    ) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.groups = groups
    }

    /// Maps `object` (verified id_token claims or a userinfo body) to an identity of `provider`.
    ///
    /// A mapped ``email`` is verified only through a mapped ``emailVerified`` (a path or a literal): the
    /// top-level `email_verified` speaks of the top-level `email`, not of an address found elsewhere.
    ///
    /// - Throws: ``SignInError`` with `claim_mapping_failed` (``SignInError/claim`` the path) when a mapped
    ///   path is missing or holds the wrong type, or when the subject is missing or empty.
    package func identity(from object: [String: JSONValue], provider: String, source: IdentitySource)
        throws(SignInError) -> VerifiedIdentity
    {
        let reading = Reading(object: object, provider: provider, source: source)
        let subjectText = try reading.subject(at: subject ?? Path("sub")!)
        let emailText: String?
        if let email {
            emailText = try reading.string(at: email)
        } else {
            emailText = object["email"]?.stringValue
        }
        let verified: Bool
        switch emailVerified {
        case .always(let flag)?: verified = flag
        case .claim(let path)?: verified = try reading.flag(at: path)
        // Only the standard `email` is vouched for by the standard `email_verified`.
        case nil: verified = email == nil ? IdentityClaims.flag(object["email_verified"]) ?? false : false
        }
        let nameText: String?
        if let name {
            nameText = try reading.string(at: name).flatMap { $0.isEmpty ? nil : $0 }
        } else {
            nameText = IdentityClaims.displayName(object)
        }
        var groupList: [String] = []
        if let groups {
            groupList = try reading.strings(at: groups)
        } else if let value = object["groups"], let strings = Self.strings(value) {
            groupList = strings
        }
        return VerifiedIdentity(
            provider: provider, subject: subjectText, email: emailText, emailVerified: verified, name: nameText,
            source: source, rawClaims: object, groups: groupList)
    }

    /// Maps the first of a sign-in's userinfo responses, which must be a JSON object, to an identity of
    /// `provider` (``identity(from:provider:source:)`` with the userinfo as source).
    ///
    /// - Throws: ``SignInError`` with `userinfo_error` when the first response is not a JSON object (or there is
    ///   none), and as ``identity(from:provider:source:)``.
    package func identity(fromUserinfo responses: [JSONValue], provider: String) throws(SignInError)
        -> VerifiedIdentity
    {
        guard let object = responses.first?.objectValue else {
            throw SignInError(
                .userinfoError, "expected a JSON object from the userinfo endpoint, found another JSON value",
                provider: provider)
        }
        return try identity(from: object, provider: provider, source: .userinfo)
    }

    /// Reads mapped paths of one object, refusing a value of the wrong type with an error naming the path.
    struct Reading {
        let object: [String: JSONValue]
        let provider: String
        let source: IdentitySource

        func failure(_ path: Path, _ expected: String, found: JSONValue?) -> SignInError {
            let origin = source == .idToken ? "the id_token claims" : "the userinfo response"
            return SignInError(
                .claimMappingFailed,
                "expected \(expected) at '\(path)' in \(origin), found \(ClaimMapping.describe(found))",
                provider: provider, claim: path.description)
        }

        /// A non-empty string, or an integer as its decimal string.
        func subject(at path: Path) throws(SignInError) -> String {
            let value = path.value(in: object)
            switch value {
            case .string(let text)? where !text.isEmpty: return text
            case .integer(let number)?: return String(number)
            default: throw failure(path, "a non-empty string or an integer", found: value)
            }
        }

        /// A string, or `nil` when the path is missing.
        func string(at path: Path) throws(SignInError) -> String? {
            let value = path.value(in: object)
            guard value == nil || value?.stringValue != nil else { throw failure(path, "a string", found: value) }
            return value?.stringValue
        }

        /// `true`/`false` (or their strings); `false` when the path is missing.
        func flag(at path: Path) throws(SignInError) -> Bool {
            guard let value = path.value(in: object) else { return false }
            guard let flag = IdentityClaims.flag(value) else { throw failure(path, "true or false", found: value) }
            return flag
        }

        /// An array of strings; empty when the path is missing.
        func strings(at path: Path) throws(SignInError) -> [String] {
            guard let value = path.value(in: object) else { return [] }
            guard let strings = ClaimMapping.strings(value) else {
                throw failure(path, "an array of strings", found: value)
            }
            return strings
        }
    }

    static func strings(_ value: JSONValue) -> [String]? {
        guard let array = value.arrayValue else { return nil }
        var result: [String] = []
        for element in array {
            guard let text = element.stringValue else { return nil }
            result.append(text)
        }
        return result
    }

    /// The kind of a found value, never the value itself (it may be personal data).
    static func describe(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: "none"
        case .string(let text)?: text.isEmpty ? "an empty string" : "a string"
        case .integer?, .double?: "a number"
        case .bool?: "a boolean"
        case .array?: "an array"
        case .object?: "an object"
        }
    }
}
