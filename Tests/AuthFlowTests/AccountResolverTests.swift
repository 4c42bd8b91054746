import AuthFlow
import AuthFlowStoreTestSupport
import Foundation
import Testing

/// The account driver over a real in-memory store: it reads, decides, applies, and decides once more when a
/// create loses its race.
@Suite struct AccountResolverTests {
    static let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    static let key = IdentityKey(provider: "google", subject: "g-1")
    static let tokens = StoredTokens(accessToken: nil, refreshToken: nil)

    static func result(
        provider: String = "google", subject: String = "g-1", email: String = "ada@example.com",
        intent: SignInIntent = .login, linkable: Bool? = nil
    ) -> SignInResult {
        let identity = VerifiedIdentity(
            provider: provider, subject: subject, email: email, emailVerified: true, name: "Ada",
            source: .idToken, rawClaims: [:], emailLinkable: linkable)
        return SignInResult(
            provider: provider, identity: identity,
            tokens: TokenSet(
                accessToken: "a", tokenType: nil, refreshToken: nil, expiresIn: nil, idToken: nil, scope: nil),
            returnTo: "/", intent: intent, unverifiedProfile: nil, trace: [])
    }

    @Test func aCreateThatLostItsRaceSignsInAsTheWinnersUser() async throws {
        let inner = InMemoryAccountStore(clock: Self.clock)
        let winner = UserID(rawValue: "winner")
        // Another sign-in of the same identity commits its user between this one's lookup and its insert.
        let store = ObservedAccountStore(inner) { key in
            _ = try? await inner.createUser(
                winner, identity: key, profile: IdentityProfile(Self.result().identity), tokens: Self.tokens)
        }
        let resolver = AccountResolver(accounts: store, rules: AccountRules(signup: true))
        let outcome = try await resolver.resolve(Self.result(), signedInUser: nil, name: nil, tokens: Self.tokens)
        #expect(outcome.decision == .update)
        #expect(outcome.identity.userID == winner)
        #expect(store.count("createUser") == 1)
        #expect(store.count("identity") == 2)
    }

    @Test func aSecondLostRaceIsRefusedRatherThanRetriedAgain() async throws {
        let inner = InMemoryAccountStore(clock: Self.clock)
        // The identity's row exists (so every insert is refused) but the lookup never sees it.
        _ = try await inner.createUser(
            UserID(rawValue: "winner"), identity: Self.key, profile: IdentityProfile(Self.result().identity),
            tokens: Self.tokens)
        let store = ObservedAccountStore(inner, hidesIdentities: true)
        let resolver = AccountResolver(accounts: store, rules: AccountRules(signup: true))
        await #expect(throws: AccountResolutionError.refused(.accountExists(provider: nil))) {
            try await resolver.resolve(Self.result(), signedInUser: nil, name: nil, tokens: Self.tokens)
        }
        #expect(store.count("createUser") == 1)
    }

    @Test func aLinkableEmailLinksToItsHolderAndOnlyThenAsksForHolders() async throws {
        let inner = InMemoryAccountStore(clock: Self.clock)
        let alice = UserID(rawValue: "alice")
        _ = try await inner.createUser(
            alice, identity: Self.key, profile: IdentityProfile(Self.result().identity), tokens: Self.tokens)
        let store = ObservedAccountStore(inner)
        let rules = AccountRules(signup: true, linkByVerifiedEmail: true, vouchingProviders: ["google"])
        let resolver = AccountResolver(accounts: store, rules: rules)

        // A GitHub identity whose plugin does not vouch for its address: a new user, the holders never asked.
        let unvouched = try await resolver.resolve(
            Self.result(provider: "github", subject: "gh-1", linkable: false), signedInUser: nil, name: nil,
            tokens: Self.tokens)
        #expect(unvouched.decision == .create)
        #expect(unvouched.identity.userID != alice)
        #expect(store.count("usersWithVerifiedEmail") == 0)

        let linked = try await resolver.resolve(
            Self.result(provider: "gitlab", subject: "gl-1"), signedInUser: nil, name: nil, tokens: Self.tokens)
        #expect(linked.decision == .link(to: alice, byVerifiedEmail: true))
        #expect(linked.identity.userID == alice)
        #expect(store.count("usersWithVerifiedEmail") == 1)
    }

    @Test func aLinkOfAnotherUsersIdentityIsRefusedAndChangesNothing() async throws {
        let store = InMemoryAccountStore(clock: Self.clock)
        let alice = UserID(rawValue: "alice")
        let bob = UserID(rawValue: "bob")
        _ = try await store.createUser(
            alice, identity: Self.key, profile: IdentityProfile(Self.result().identity), tokens: Self.tokens)
        let resolver = AccountResolver(accounts: store, rules: AccountRules(signup: true))
        await #expect(throws: AccountResolutionError.refused(.accountExists(provider: "google"))) {
            try await resolver.resolve(Self.result(intent: .link), signedInUser: bob, name: nil, tokens: Self.tokens)
        }
        #expect(try await store.identity(Self.key)?.userID == alice)
    }

    @Test func aSubjectThatCannotKeyAnIdentityIsRefusedBeforeAnyStoreIsRead() async throws {
        let store = ObservedAccountStore(InMemoryAccountStore(clock: Self.clock))
        let resolver = AccountResolver(accounts: store, rules: AccountRules(signup: true))
        for (subject, found) in [
            ("", "an empty one"), (String(repeating: "s", count: 256), "one of 256 bytes"),
            ("g-1\u{1B}[2J", "one with such a character"), ("g-1\u{2028}", "one with such a character"),
        ] {
            let refusal = AccountRefusal.invalidSubject(provider: "google", found: found)
            #expect(AccountRules.subjectRefusal(IdentityKey(provider: "google", subject: subject)) == refusal)
            await #expect(throws: AccountResolutionError.refused(refusal)) {
                try await resolver.resolve(
                    Self.result(subject: subject), signedInUser: nil, name: nil, tokens: Self.tokens)
            }
        }
        #expect(store.count("identity") == 0)
        #expect(store.count("createUser") == 0)
        let refusal = try #require(AccountRules.subjectRefusal(IdentityKey(provider: "google", subject: "g\u{7}")))
        #expect(refusal.statusHint == 403)
        #expect(
            refusal.message
                == "expected a provider subject of 1 to 255 bytes without control, line separator or bidirectional "
                + "control characters, found one with such a character")
        #expect(AccountRules.subjectRefusal(IdentityKey(provider: "google", subject: "g-1")) == nil)
    }
}
