import AuthFlow
import Foundation
import Testing

/// Every branch of the account decision, from the situation alone (no store).
@Suite struct AccountRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let alice = UserID(rawValue: "user-alice")
    static let bob = UserID(rawValue: "user-bob")

    static func stored(
        _ user: UserID, provider: String = "google", subject: String = "g-1", email: String? = "ada@example.com",
        verified: Bool = true, privateRelay: Bool = false, disabled: Bool = false
    ) -> LinkedIdentity {
        LinkedIdentity(
            userID: user, provider: provider, subject: subject, email: email, emailVerified: verified,
            isPrivateEmail: privateRelay, emailDisabled: false, name: nil, isDisabled: disabled, createdAt: now,
            updatedAt: now)
    }

    static func account(_ id: UserID, _ identities: LinkedIdentity...) -> UserAccount {
        UserAccount(id: id, createdAt: now, identities: identities)
    }

    /// The rules of most cases: sign-up on, linking by verified email from every provider, Google vouching.
    static let linking = AccountRules(signup: true, linkByVerifiedEmail: true, vouchingProviders: ["google", "apple"])

    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        var rules = AccountRulesTests.linking
        let situation: AccountSituation
        let expected: AccountDecision
    }

    /// A new GitHub login whose verified, linkable email is ada@example.com.
    static func newLogin(
        holders: [UserAccount] = [], linkable: Bool = true, email: String = "ada@example.com",
        lostRace: Bool = false
    ) -> AccountSituation {
        AccountSituation(
            intent: .login, provider: "github", storedIdentity: nil, email: email, emailLinkable: linkable,
            usersWithEmail: holders, lostCreateRace: lostRace)
    }

    static let cases: [Case] = [
        // login
        Case(
            testDescription: "login of a known identity signs in",
            situation: AccountSituation(intent: .login, provider: "google", storedIdentity: stored(alice)),
            expected: .update),
        Case(
            testDescription: "login of a disabled identity is refused",
            situation: AccountSituation(
                intent: .login, provider: "google", storedIdentity: stored(alice, disabled: true)),
            expected: .refuse(.identityDisabled)),
        Case(
            testDescription: "login of an unknown identity with sign-up creates a user",
            rules: AccountRules(signup: true),
            situation: AccountSituation(intent: .login, provider: "google", storedIdentity: nil),
            expected: .create),
        Case(
            testDescription: "login of an unknown identity without sign-up is refused",
            rules: AccountRules(signup: false),
            situation: AccountSituation(intent: .login, provider: "google", storedIdentity: nil),
            expected: .refuse(.signupDisabled)),
        Case(
            testDescription: "login links to the single user holding the verified email",
            situation: newLogin(holders: [account(alice, stored(alice))]),
            expected: .link(to: alice, byVerifiedEmail: true)),
        Case(
            testDescription: "login links when only the domain's case differs",
            situation: newLogin(holders: [account(alice, stored(alice))], email: "ada@EXAMPLE.com"),
            expected: .link(to: alice, byVerifiedEmail: true)),
        Case(
            testDescription: "login does not link when the local part's case differs (the store narrowed loosely)",
            situation: newLogin(holders: [account(alice, stored(alice))], email: "Ada@example.com"),
            expected: .create),
        Case(
            testDescription: "login does not link a non-linkable email (unverified, or the plugin vouches for none)",
            situation: newLogin(holders: [account(alice, stored(alice))], linkable: false),
            expected: .create),
        Case(
            testDescription: "login without sign-up and a non-linkable email is refused",
            rules: AccountRules(signup: false, linkByVerifiedEmail: true, vouchingProviders: ["google"]),
            situation: newLogin(holders: [account(alice, stored(alice))], linkable: false),
            expected: .refuse(.signupDisabled)),
        Case(
            testDescription: "login does not link when the policy is off",
            rules: AccountRules(signup: true, linkByVerifiedEmail: .off, vouchingProviders: ["google"]),
            situation: newLogin(holders: [account(alice, stored(alice))]),
            expected: .create),
        Case(
            testDescription: "login does not link from a provider the policy does not list",
            rules: AccountRules(
                signup: true, linkByVerifiedEmail: .providers(["apple"]), vouchingProviders: ["google"]),
            situation: newLogin(holders: [account(alice, stored(alice))]),
            expected: .create),
        Case(
            testDescription: "login does not link to two users holding the email",
            situation: newLogin(holders: [
                account(alice, stored(alice)), account(bob, stored(bob, subject: "g-2")),
            ]),
            expected: .create),
        Case(
            testDescription: "login does not link to a user holding the email through a private relay address",
            situation: newLogin(holders: [account(alice, stored(alice, provider: "apple", privateRelay: true))]),
            expected: .create),
        Case(
            testDescription: "login does not link to a user holding the email unverified",
            situation: newLogin(holders: [account(alice, stored(alice, verified: false))]),
            expected: .create),
        Case(
            testDescription: "login does not link to a user holding the email through a disabled identity",
            situation: newLogin(holders: [account(alice, stored(alice, disabled: true))]),
            expected: .create),
        Case(
            testDescription: "login does not link to a user holding the email through a provider vouching for none",
            situation: newLogin(holders: [account(alice, stored(alice, provider: "facebook"))]),
            expected: .create),
        Case(
            testDescription: "login after a lost create race signs in as the winner's user",
            situation: AccountSituation(
                intent: .login, provider: "google", storedIdentity: stored(bob), lostCreateRace: true),
            expected: .update),
        Case(
            testDescription: "login after a lost create race refuses a disabled winner",
            situation: AccountSituation(
                intent: .login, provider: "google", storedIdentity: stored(bob, disabled: true), lostCreateRace: true),
            expected: .refuse(.identityDisabled)),
        Case(
            testDescription: "login after a lost create race without a winner is refused, not created again",
            situation: newLogin(holders: [account(alice, stored(alice))], lostRace: true),
            expected: .refuse(.accountExists(provider: nil))),
        // register
        Case(
            testDescription: "register of an existing identity is refused",
            situation: AccountSituation(intent: .register, provider: "google", storedIdentity: stored(alice)),
            expected: .refuse(.accountExists(provider: "google"))),
        Case(
            testDescription: "register of a new identity creates a user, never linking by email",
            situation: AccountSituation(
                intent: .register, provider: "github", storedIdentity: nil, email: "ada@example.com",
                emailLinkable: true, usersWithEmail: [account(alice, stored(alice))]),
            expected: .create),
        Case(
            testDescription: "register without sign-up is refused",
            rules: AccountRules(signup: false),
            situation: AccountSituation(intent: .register, provider: "google", storedIdentity: nil),
            expected: .refuse(.signupDisabled)),
        Case(
            testDescription: "register that lost its create race is refused",
            situation: AccountSituation(
                intent: .register, provider: "google", storedIdentity: stored(bob), lostCreateRace: true),
            expected: .refuse(.accountExists(provider: nil))),
        // link
        Case(
            testDescription: "link without a signed-in user is refused",
            situation: AccountSituation(intent: .link, provider: "github", storedIdentity: nil),
            expected: .refuse(.notSignedIn(provider: "github"))),
        Case(
            testDescription: "link of a new identity attaches it to the signed-in user",
            situation: AccountSituation(intent: .link, provider: "github", storedIdentity: nil, signedInUser: alice),
            expected: .link(to: alice, byVerifiedEmail: false)),
        Case(
            testDescription: "link of another user's identity is refused",
            situation: AccountSituation(
                intent: .link, provider: "google", storedIdentity: stored(bob), signedInUser: alice),
            expected: .refuse(.accountExists(provider: "google"))),
        Case(
            testDescription: "link of the signed-in user's own identity signs in",
            situation: AccountSituation(
                intent: .link, provider: "google", storedIdentity: stored(alice), signedInUser: alice),
            expected: .update),
        Case(
            testDescription: "link of the signed-in user's own disabled identity is refused",
            situation: AccountSituation(
                intent: .link, provider: "google", storedIdentity: stored(alice, disabled: true), signedInUser: alice),
            expected: .refuse(.identityDisabled)),
        Case(
            testDescription: "link with sign-up off still links (no new user)",
            rules: AccountRules(signup: false),
            situation: AccountSituation(intent: .link, provider: "github", storedIdentity: nil, signedInUser: alice),
            expected: .link(to: alice, byVerifiedEmail: false)),
    ]

    @Test(arguments: cases) func decides(_ test: Case) {
        #expect(test.rules.decide(test.situation) == test.expected)
    }

    @Test func asksForTheEmailsHoldersOnlyWhenItCanLink() {
        #expect(Self.linking.emailToMatch(Self.newLogin()) == "ada@example.com")
        #expect(Self.linking.emailToMatch(Self.newLogin(linkable: false)) == nil)
        #expect(Self.linking.emailToMatch(Self.newLogin(lostRace: true)) == nil)
        #expect(AccountRules(signup: true).emailToMatch(Self.newLogin()) == nil)
        var known = Self.newLogin()
        known.storedIdentity = Self.stored(Self.alice)
        #expect(Self.linking.emailToMatch(known) == nil)
        for intent in [SignInIntent.register, .link] {
            var other = Self.newLogin()
            other.intent = intent
            #expect(Self.linking.emailToMatch(other) == nil)
        }
    }

    @Test func refusalsCarryTheServersCodesAndStatuses() {
        #expect(AccountRefusal.accountExists(provider: "x").code.rawValue == "account_exists")
        #expect(AccountRefusal.signupDisabled.code.rawValue == "signup_disabled")
        #expect(AccountRefusal.identityDisabled.code.rawValue == "identity_disabled")
        #expect(AccountRefusal.notSignedIn(provider: nil).code.rawValue == "not_signed_in")
        #expect(AccountRefusal.notSignedIn(provider: nil).statusHint == 401)
        #expect(AccountRefusal.accountExists(provider: nil).statusHint == 403)
    }
}
