public import AuthFlowJOSE

/// Where an identity's members come from in id_token claims or userinfo JSON (`providers.NAME.claims`).
///
/// Each member is a claim name or a dotted path into nested objects (`data.id`); `email_verified` may also be
/// the literal `true` or `false` for a provider whose emails are verified (or never) by policy. A member left
/// out keeps its standard claim: `sub`, `email`, `email_verified` (`true` or `"true"`), `name` (else
/// `given_name` and `family_name`) and `groups` (read only when it is an array of strings). A mapped path that
/// is missing or holds the wrong type refuses the sign-in with `claim_mapping_failed` naming the path; a
/// numeric subject is taken as its decimal string.
public struct ClaimMapping: Sendable, Hashable {
    /// A claim name or a dotted path of object members.
    public struct Path: Sendable, Hashable, CustomStringConvertible {
        /// The member names, outermost first.
        public let components: [String]

        /// Parses `data.id`; `nil` when a component is empty.
        public init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
            components = parts
        }

        /// The dotted form.
        public var description: String { components.joined(separator: ".") }

        /// The value at this path, or `nil` when a member is missing (or JSON `null`) or a parent is not an object.
        public func value(in object: [String: JSONValue]) -> JSONValue? {
            var current: JSONValue = .object(object)
            for component in components {
                guard let next = current.objectValue?[component], next != .null else { return nil }
                current = next
            }
            return current
        }
    }

    /// Where `email_verified` comes from.
    public enum Verification: Sendable, Hashable {
        /// A claim holding `true`/`false` (or the strings `"true"`/`"false"`).
        case claim(Path)
        /// A policy: every email of this provider is verified (`true`) or none is (`false`).
        case always(Bool)
    }

    /// `claims.subject`; `nil` reads `sub`.
    public var subject: Path?
    /// `claims.email`; `nil` reads `email`.
    public var email: Path?
    /// `claims.email_verified`; `nil` reads `email_verified`.
    public var emailVerified: Verification?
    /// `claims.name`; `nil` reads `name`, else `given_name` and `family_name`.
    public var name: Path?
    /// `claims.groups`; `nil` reads `groups` when it is an array of strings.
    public var groups: Path?

    /// The standard mapping (every member left out).
    public static let standard = ClaimMapping()

    /// Creates a mapping; members left `nil` keep their standard claim.
    public init(
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
    /// - Throws: ``SignInError`` with `claim_mapping_failed` (``SignInError/claim`` the path) when a mapped
    ///   path is missing or holds the wrong type, or when the subject is missing or empty.
    public func identity(from object: [String: JSONValue], provider: String, source: IdentitySource)
        throws(SignInError) -> VerifiedIdentity
    {
        let origin = source == .idToken ? "the id_token claims" : "the userinfo response"
        func failure(_ path: String, _ expected: String, found: JSONValue?) -> SignInError {
            SignInError(
                .claimMappingFailed, "expected \(expected) at '\(path)' in \(origin), found \(Self.describe(found))",
                provider: provider, claim: path)
        }
        let subjectPath = subject ?? Path("sub")!
        let subjectValue = subjectPath.value(in: object)
        let subjectText: String
        switch subjectValue {
        case .string(let text)? where !text.isEmpty: subjectText = text
        case .integer(let number)?: subjectText = String(number)
        default: throw failure(subjectPath.description, "a non-empty string or an integer", found: subjectValue)
        }

        var emailText: String?
        if let email {
            let value = email.value(in: object)
            guard value == nil || value?.stringValue != nil else {
                throw failure(email.description, "a string", found: value)
            }
            emailText = value?.stringValue
        } else {
            emailText = object["email"]?.stringValue
        }

        let verified: Bool
        switch emailVerified {
        case .always(let flag)?: verified = flag
        case .claim(let path)?:
            let value = path.value(in: object)
            if value == nil {
                verified = false
            } else if let flag = IdentityClaims.flag(value) {
                verified = flag
            } else {
                throw failure(path.description, "true or false", found: value)
            }
        case nil: verified = IdentityClaims.flag(object["email_verified"]) ?? false
        }

        var nameText: String?
        if let name {
            let value = name.value(in: object)
            guard value == nil || value?.stringValue != nil else {
                throw failure(name.description, "a string", found: value)
            }
            nameText = value?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        } else {
            nameText = IdentityClaims.displayName(object)
        }

        var groupList: [String] = []
        if let groups {
            let value = groups.value(in: object)
            if let value {
                guard let strings = Self.strings(value) else {
                    throw failure(groups.description, "an array of strings", found: value)
                }
                groupList = strings
            }
        } else if let value = object["groups"], let strings = Self.strings(value) {
            groupList = strings
        }

        return VerifiedIdentity(
            provider: provider, subject: subjectText, email: emailText, emailVerified: verified, name: nameText,
            source: source, rawClaims: object, groups: groupList)
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
