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
