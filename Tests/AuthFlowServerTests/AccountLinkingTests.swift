import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

@Suite("Linking by verified email: exact addresses, and only the providers the operator lists")
struct AccountLinkingTests {
    static let kelvin = SandboxIdentity(
        subject: "kelvin-1", email: "\u{212A}ate@example.com", givenName: "Kate", familyName: "Kelvin")
    static let kate = SandboxIdentity(
        subject: "kate-1", email: "kate@example.com", givenName: "Kate", familyName: "Example")

    @Test func aKelvinSignAddressDoesNotLinkToTheUserWithTheAsciiAddress() async throws {
        var settings = TestDeployment.Settings()
        settings.linkByVerifiedEmail = true
        try await TestDeployment.with(settings) { app in
            let google = TestBrowser()
            try await app.signIn(google, provider: "google", as: Self.kate)
            let kateUser = try #require(try await app.session(google).json?["user_id"]?.stringValue)
            let apple = TestBrowser()
            #expect(try await app.signIn(apple, provider: "apple", as: Self.kelvin).status == 303)
            let appleUser = try #require(try await app.session(apple).json?["user_id"]?.stringValue)
            #expect(appleUser != kateUser)
        }
    }

    @Test func aDomainInOtherAsciiCaseStillLinks() async throws {
        var settings = TestDeployment.Settings()
        settings.linkByVerifiedEmail = true
        try await TestDeployment.with(settings) { app in
            let google = TestBrowser()
            try await app.signIn(google, provider: "google", as: Self.kate)
            let kateUser = try #require(try await app.session(google).json?["user_id"]?.stringValue)
            let shouting = SandboxIdentity(
                subject: "kate-apple", email: "kate@EXAMPLE.com", givenName: "Kate", familyName: "Example")
            let apple = TestBrowser()
            try await app.signIn(apple, provider: "apple", as: shouting)
            #expect(try await app.session(apple).json?["user_id"]?.stringValue == kateUser)
        }
    }

    @Test func onlyListedProvidersLinkByEmail() async throws {
        var settings = TestDeployment.Settings()
        settings.linkByVerifiedEmail = .providers(["google", "apple"])
        try await TestDeployment.with(settings) { app in
            let apple = TestBrowser()
            try await app.signIn(apple, provider: "apple", as: People.alice)  // verified alice@example.com
            let appleUser = try #require(try await app.session(apple).json?["user_id"]?.stringValue)
            // Both listed: Google's verified address links to Apple's user.
            let google = TestBrowser()
            try await app.signIn(google, provider: "google", as: People.alice)
            #expect(try await app.session(google).json?["user_id"]?.stringValue == appleUser)
        }
        settings.linkByVerifiedEmail = .providers(["google"])
        try await TestDeployment.with(settings) { app in
            let google = TestBrowser()
            try await app.signIn(google, provider: "google", as: People.alice)
            let googleUser = try #require(try await app.session(google).json?["user_id"]?.stringValue)
            // Apple is not listed: the same verified address makes another user.
            let apple = TestBrowser()
            try await app.signIn(apple, provider: "apple", as: People.alice)
            #expect(try await app.session(apple).json?["user_id"]?.stringValue != googleUser)
        }
    }

    /// With a list, both sides of a link come from listed providers: a user made through an unlisted provider
    /// (which an attacker can sign up through, claiming the victim's address) never receives the sign-in of a
    /// listed one.
    @Test func aUserMadeThroughAnUnlistedProviderIsNoLinkTarget() async throws {
        var settings = TestDeployment.Settings()
        settings.linkByVerifiedEmail = .providers(["google"])
        try await TestDeployment.with(settings) { app in
            let attacker = TestBrowser()
            try await app.signIn(attacker, provider: "apple", as: People.alice)  // claims alice@example.com
            let attackerUser = try #require(try await app.session(attacker).json?["user_id"]?.stringValue)
            let victim = TestBrowser()
            try await app.signIn(victim, provider: "google", as: People.alice)
            let victimUser = try #require(try await app.session(victim).json?["user_id"]?.stringValue)
            #expect(victimUser != attackerUser)
            // The attacker's session still sees only the attacker's own user.
            #expect(try await app.session(attacker).json?["provider"]?.stringValue == "apple")
            let google = try await app.stores.accounts.identity(IdentityKey(provider: "google", subject: "alice-1"))
            #expect(google?.userID.rawValue == victimUser)
        }
    }

    /// A verified Apple relay address is not one Apple's plugin vouches for: it never links, even to a user whose
    /// verified address it is exactly.
    @Test func anAppleRelayAddressNeverLinks() async throws {
        var settings = TestDeployment.Settings()
        settings.linkByVerifiedEmail = true
        let relay = "k7x2p9@privaterelay.appleid.com"
        try await TestDeployment.with(settings) { app in
            let google = TestBrowser()
            let viaGoogle = SandboxIdentity(subject: "g-relay", email: relay, givenName: "K", familyName: "R")
            try await app.signIn(google, provider: "google", as: viaGoogle)
            let googleUser = try #require(try await app.session(google).json?["user_id"]?.stringValue)
            let apple = TestBrowser()
            let viaApple = SandboxIdentity(subject: "a-relay", email: relay, givenName: "K", familyName: "R")
            #expect(try await app.signIn(apple, provider: "apple", as: viaApple).status == 303)
            let session = try #require(try await app.session(apple).json)
            #expect(session["user_id"]?.stringValue != googleUser)
            #expect(session["email"]?.stringValue == relay)
        }
    }

    /// The other way round: a user who first signed in with a relay address (or through a provider that
    /// vouches for no email) is never the target a later sign-in with that verified address links to.
    @Test func aStoredEmailLinksOnlyWhereItsOwnProviderVouchedForIt() async throws {
        var settings = TestDeployment.Settings()
        settings.linkByVerifiedEmail = true
        let relay = "q4m8z1@privaterelay.appleid.com"
        try await TestDeployment.with(settings) { app in
            let apple = TestBrowser()
            let viaApple = SandboxIdentity(subject: "a-first", email: relay, givenName: "Q", familyName: "M")
            #expect(try await app.signIn(apple, provider: "apple", as: viaApple).status == 303)
            let appleUser = try #require(try await app.session(apple).json?["user_id"]?.stringValue)
            let google = TestBrowser()
            let viaGoogle = SandboxIdentity(subject: "g-second", email: relay, givenName: "Q", familyName: "M")
            try await app.signIn(google, provider: "google", as: viaGoogle)
            #expect(try await app.session(google).json?["user_id"]?.stringValue != appleUser)

            let facebook = TestBrowser()
            let shared = "dana@example.com"
            let viaFacebook = SandboxIdentity(subject: "f-first", email: shared, givenName: "Dana", familyName: "F")
            try await app.signIn(facebook, provider: "facebook", as: viaFacebook)
            let facebookUser = try #require(try await app.session(facebook).json?["user_id"]?.stringValue)
            let second = TestBrowser()
            let viaGoogleToo = SandboxIdentity(subject: "g-dana", email: shared, givenName: "Dana", familyName: "F")
            try await app.signIn(second, provider: "google", as: viaGoogleToo)
            #expect(try await app.session(second).json?["user_id"]?.stringValue != facebookUser)

            // A provider that vouches for its email is still a target: Google first, then Apple with the same
            // (non-relay) address links — the control showing the refusals above come from the rule.
            let first = TestBrowser()
            let plain = "erin@example.com"
            try await app.signIn(
                first, provider: "google",
                as: SandboxIdentity(subject: "g-erin", email: plain, givenName: "Erin", familyName: "E"))
            let googleUser = try #require(try await app.session(first).json?["user_id"]?.stringValue)
            let then = TestBrowser()
            try await app.signIn(
                then, provider: "apple",
                as: SandboxIdentity(subject: "a-erin", email: plain, givenName: "Erin", familyName: "E"))
            #expect(try await app.session(then).json?["user_id"]?.stringValue == googleUser)
        }
    }

    @Test func emailComparisonIsExactBesidesTheAsciiDomain() {
        #expect(EmailLinkPolicy.matches("kate@example.com", "kate@EXAMPLE.COM"))
        #expect(!EmailLinkPolicy.matches("\u{212A}ate@example.com", "kate@example.com"))
        #expect(!EmailLinkPolicy.matches("Kate@example.com", "kate@example.com"))
        #expect(!EmailLinkPolicy.matches("kate@exampl\u{0130}.com", "kate@exampli.com"))
        #expect(!EmailLinkPolicy.matches("kate", "kate"))
        #expect(!EmailLinkPolicy.matches("@example.com", "@example.com"))
        #expect(EmailLinkPolicy.allProviders.allows(provider: "anything"))
        #expect(!EmailLinkPolicy.off.allows(provider: "google"))
        #expect(EmailLinkPolicy.providers(["apple"]).allows(provider: "apple"))
        #expect(!EmailLinkPolicy.providers(["apple"]).allows(provider: "google"))
    }
}
