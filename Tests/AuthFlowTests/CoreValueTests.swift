import AuthFlowJOSE
import Testing

@testable import AuthFlow

/// The small public value types plugins and applications compare, sort and print.
@Suite("Core value types: ordering, defaults, equality, descriptions")
struct CoreValueTests {
    @Test func capabilitiesSortInDeclarationOrder() {
        #expect([Capability.formPost, .oidc, .jwtClientAuth, .pkce].sorted() == Capability.allCases)
        #expect(Capability.pkce < .formPost)
        #expect(!(Capability.formPost < .pkce))
    }

    @Test func onlyRequiredAndDefaultOnOptionalCapabilitiesAreOnByDefault() {
        #expect(CapabilitySupport.required.enabledByDefault)
        #expect(CapabilitySupport.optional(default: true).enabledByDefault)
        #expect(!CapabilitySupport.optional(default: false).enabledByDefault)
        #expect(!CapabilitySupport.unsupported(reason: "no PKCE").enabledByDefault)
    }

    @Test func anEmailIsLinkableOnlyWhenPresentVerifiedAndVouchedFor() {
        func identity(email: String?, verified: Bool, linkable: Bool?) -> VerifiedIdentity {
            VerifiedIdentity(
                provider: "p", subject: "s", email: email, emailVerified: verified, name: nil, source: .userinfo,
                rawClaims: [:], emailLinkable: linkable)
        }
        #expect(identity(email: "a@example.com", verified: true, linkable: nil).emailLinkable)
        #expect(!identity(email: "a@example.com", verified: true, linkable: false).emailLinkable)
        #expect(!identity(email: "a@example.com", verified: false, linkable: true).emailLinkable)
        #expect(!identity(email: nil, verified: true, linkable: true).emailLinkable)
    }

    @Test func aRelayAddressIsStoredAsPrivateOnlyWithAnEmail() {
        let relay = VerifiedIdentity(
            provider: "apple", subject: "s", email: "x@privaterelay.appleid.com", emailVerified: true, name: nil,
            source: .idToken, rawClaims: [:], isPrivateRelayEmail: true)
        #expect(IdentityProfile(relay).isPrivateEmail)
        #expect(IdentityProfileUpdate(relay).isPrivateEmail == true)
        let none = VerifiedIdentity(
            provider: "apple", subject: "s", email: nil, emailVerified: false, name: nil, source: .idToken,
            rawClaims: [:], isPrivateRelayEmail: true)
        #expect(!IdentityProfile(none).isPrivateEmail)
        #expect(IdentityProfileUpdate(none).isPrivateEmail == nil)
    }

    @Test func endpointOverridesAreEmptyOnlyWithoutAnyEndpoint() {
        #expect(ProviderEndpoints().isEmpty)
        #expect(!ProviderEndpoints(token: "https://id.example/token").isEmpty)
        #expect(!ProviderEndpoints(revocation: "").isEmpty)
    }

    @Test func configurationErrorsAreEqualAndHashAlikeByTheirIssues() {
        let issue = ConfigurationIssue(code: .missingKey, message: "expected client_id", location: nil)
        let other = ConfigurationIssue(code: .wrongType, message: "expected a list", location: nil)
        let errors: Set<ConfigurationError> = [
            ConfigurationError(issues: [issue]), ConfigurationError(issues: [issue]),
            ConfigurationError(issues: [other]),
        ]
        #expect(errors.count == 2)
        #expect(ConfigurationError(issues: [issue]) == ConfigurationError(issues: [issue]))
        #expect(ConfigurationError(issues: [issue]) != ConfigurationError(issues: [other]))
    }

    @Test func aFlowRecordSealPrintsNoKeyMaterial() throws {
        let secret = [UInt8](repeating: 0x5A, count: 32)
        let seal = try FlowRecordSeal(secret: secret, random: SystemRandom())
        let text = "\(seal)"
        #expect(text == "FlowRecordSeal(AES-256-GCM)")
        #expect(!text.contains(Base64URL.encode(secret)))
    }
}
