import AuthFlowJOSE
import Testing

@testable import AuthFlow

/// `claims:`: dotted paths, literals, numeric subjects and the typed errors naming a path.
@Suite struct ClaimMappingTests {
    static let userinfo: [String: JSONValue] = [
        "data": .object([
            "id": .integer(12_345), "login": "octo", "mail": "octo@example.com",
            "teams": .array(["admins", "ops"]), "verified": .string("true"),
        ]),
        "sub": "ignored",
    ]

    @Test func readsDottedPathsAndANumericSubjectAsItsDecimalString() throws {
        let mapping = ClaimMapping(
            subject: .init("data.id"), email: .init("data.mail"), emailVerified: .claim(.init("data.verified")!),
            name: .init("data.login"), groups: .init("data.teams"))
        let identity = try mapping.identity(from: Self.userinfo, provider: "corp", source: .userinfo)
        #expect(identity.subject == "12345")
        #expect(identity.email == "octo@example.com")
        #expect(identity.emailVerified)
        #expect(identity.name == "octo")
        #expect(identity.groups == ["admins", "ops"])
        #expect(identity.source == .userinfo)
    }

    @Test func aLiteralEmailVerifiedIsAPolicy() throws {
        let claims: [String: JSONValue] = ["sub": "s", "email": "a@example.com", "email_verified": true]
        let never = try ClaimMapping(emailVerified: .always(false)).identity(
            from: claims, provider: "p", source: .idToken)
        #expect(!never.emailVerified)
        #expect(!never.emailLinkable)
        let always = try ClaimMapping(emailVerified: .always(true)).identity(
            from: ["sub": "s", "email": "a@example.com"], provider: "p", source: .idToken)
        #expect(always.emailVerified)
    }

    /// Where the email is read from.
    enum EmailSource: String, CaseIterable, Sendable {
        case standardClaim, mappedPath
    }

    /// Where `email_verified` is read from.
    enum FlagSource: String, CaseIterable, Sendable {
        /// No `claims.email_verified`; the body has a top-level `email_verified: true`.
        case topLevel
        /// `claims.email_verified: data.verified`, which holds `true`.
        case mappedPath
        /// `claims.email_verified: true`, the operator's literal.
        case literal
        /// No `claims.email_verified` and no flag anywhere.
        case absent
    }

    /// Whether the email ends up verified, for each email source and flag source.
    static func expectedVerified(_ email: EmailSource, _ flag: FlagSource) -> Bool {
        switch (email, flag) {
        case (_, .absent): false
        // The top-level flag speaks of the top-level email only, never of an address mapped from elsewhere.
        case (.mappedPath, .topLevel): false
        case (.standardClaim, .topLevel), (_, .mappedPath), (_, .literal): true
        }
    }

    @Test(arguments: EmailSource.allCases, FlagSource.allCases)
    func aMappedEmailIsVerifiedOnlyThroughAMappedFlagOrALiteral(email: EmailSource, flag: FlagSource) throws {
        var data: [String: JSONValue] = ["email": "victim@example.com"]
        var object: [String: JSONValue] = ["sub": "s-1", "email": "own@example.com"]
        var mapping = ClaimMapping()
        if email == .mappedPath {
            mapping.email = .init("data.email")
            object["email"] = nil
        }
        switch flag {
        case .topLevel: object["email_verified"] = true
        case .mappedPath:
            data["verified"] = true
            mapping.emailVerified = .claim(.init("data.verified")!)
        case .literal: mapping.emailVerified = .always(true)
        case .absent: break
        }
        object["data"] = .object(data)
        let identity = try mapping.identity(from: object, provider: "corp", source: .userinfo)
        let expected = Self.expectedVerified(email, flag)
        #expect(identity.email == (email == .mappedPath ? "victim@example.com" : "own@example.com"))
        #expect(identity.emailVerified == expected, "email from \(email), flag from \(flag)")
        #expect(identity.emailLinkable == expected, "email from \(email), flag from \(flag)")
    }

    @Test func aMappedEmailThatIsMissingIsAbsentNeverTheTopLevelOne() throws {
        let identity = try ClaimMapping(email: .init("data.email")).identity(
            from: ["sub": "s-1", "email": "top@example.com", "email_verified": true], provider: "corp",
            source: .userinfo)
        #expect(identity.email == nil)
        #expect(!identity.emailVerified && !identity.emailLinkable)
    }

    @Test func aMappedEmailMayNameTheTopLevelFlagAsItsVerification() throws {
        let mapping = ClaimMapping(email: .init("data.email"), emailVerified: .claim(.init("email_verified")!))
        let identity = try mapping.identity(
            from: ["sub": "s-1", "data": ["email": "a@example.com"], "email_verified": true], provider: "corp",
            source: .userinfo)
        #expect(identity.emailVerified)
    }

    @Test func theStandardMappingReadsAGroupsArrayOfStringsOnly() throws {
        let standard = try ClaimMapping.standard.identity(
            from: ["sub": "s", "groups": ["a", "b"], "given_name": "Ada", "family_name": "L"], provider: "p",
            source: .idToken)
        #expect(standard.groups == ["a", "b"])
        #expect(standard.name == "Ada L")
        let mixed = try ClaimMapping.standard.identity(
            from: ["sub": "s", "groups": ["a", 1]], provider: "p", source: .idToken)
        #expect(mixed.groups == [])
    }

    @Test func aMissingOrWrongTypedPathIsATypedErrorNamingIt() {
        func failure(_ mapping: ClaimMapping, _ object: [String: JSONValue] = ClaimMappingTests.userinfo)
            -> SignInError?
        {
            do throws(SignInError) {
                _ = try mapping.identity(from: object, provider: "corp", source: .userinfo)
                return nil
            } catch {
                return error
            }
        }
        let missing = failure(ClaimMapping(subject: .init("data.uid")))
        #expect(missing?.code == .claimMappingFailed)
        #expect(missing?.claim == "data.uid")
        #expect(
            missing?.message
                == "expected a non-empty string or an integer at 'data.uid' in the userinfo response, found none")
        let object = failure(ClaimMapping(subject: .init("data")))
        #expect(object?.message.contains("found an object") == true)
        let email = failure(ClaimMapping(subject: .init("data.id"), email: .init("data.teams")))
        #expect(email?.claim == "data.teams")
        #expect(email?.message.contains("expected a string") == true)
        let groups = failure(ClaimMapping(subject: .init("data.id"), groups: .init("data.login")))
        #expect(groups?.message.contains("expected an array of strings at 'data.login'") == true)
        let verified = failure(ClaimMapping(subject: .init("data.id"), emailVerified: .claim(.init("data.login")!)))
        #expect(verified?.message.contains("expected true or false at 'data.login'") == true)
        // The value itself (personal data) is never quoted.
        #expect(verified?.message.contains("octo") == false)
        #expect(failure(.standard, ["sub": ""])?.claim == "sub")
    }

    @Test func pathsRefuseEmptyComponents() {
        #expect(ClaimMapping.Path("data.id")?.components == ["data", "id"])
        for text in ["", ".", "data.", ".id", "a..b"] { #expect(ClaimMapping.Path(text) == nil) }
    }
}
