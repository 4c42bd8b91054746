import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

/// Every combination that decides whether a sign-in joins an existing user, decided by ``AccountRules`` and
/// compared with the rules `docs/threat-model.md` ("Linking") writes down. The email reaches the decision through
/// the code that reads it in production (``ClaimMapping/identity(from:provider:source:)``), from each source.
@Suite("Linking table: intent × credential × listed providers × email source, verification, vouching, relay")
struct LinkingTableTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let victim = UserID(rawValue: "user-victim")
    static let current = UserID(rawValue: "user-signed-in")
    static let address = "victim@corp.example"

    /// Where the signing-in identity's email and its verification come from.
    enum EmailSource: CaseIterable {
        /// Standard id_token claims `email`, `email_verified`.
        case idToken
        /// Standard userinfo members `email`, `email_verified`.
        case userinfo
        /// `claims: {email: data.email, email_verified: data.verified}`.
        case mappedFlag
        /// `claims: {email: data.email}` with `email_verified` only at the top level: never verified.
        case mappedEmailTopLevelFlag
        /// `claims: {email: data.email, email_verified: true|false}`: the operator's policy.
        case literal
    }

    struct Combination: CustomStringConvertible {
        var intent: SignInIntent
        var authority: LinkAuthority?
        var policy: Int  // 0 off, 1 every provider, 2 a list
        var signerListed: Bool
        var holderListed: Bool
        var source: EmailSource
        var flag: Bool
        var vouched: Bool
        var relay: Bool
        var holderVouched: Bool
        var holderRelay: Bool

        var description: String {
            "\(intent) authority=\(authority.map(\.rawValue) ?? "none") policy=\(policy) signerListed=\(signerListed) "
                + "holderListed=\(holderListed) source=\(source) verified=\(flag) vouched=\(vouched) relay=\(relay) "
                + "holderVouched=\(holderVouched) holderRelay=\(holderRelay)"
        }

        var signer: String { signerListed ? "listed-signer" : "unlisted-signer" }
        var holderProvider: String { holderListed ? "listed-holder" : "unlisted-holder" }

        var linkPolicy: EmailLinkPolicy {
            switch policy {
            case 0: .off
            case 1: .allProviders
            default: .providers(["listed-signer", "listed-holder"])
            }
        }

        var rules: AccountRules {
            AccountRules(
                signup: true, linkByVerifiedEmail: linkPolicy,
                vouchingProviders: holderVouched ? ["listed-signer", "unlisted-signer", holderProvider] : [])
        }
    }

    /// The signing-in identity as the claims mapping reads it from `source`, then vouched for (or not) by its
    /// plugin as plugins do.
    static func identity(_ combination: Combination) throws -> VerifiedIdentity {
        let flag = JSONValue.bool(combination.flag)
        let email = JSONValue.string(address)
        let mapping: ClaimMapping
        let object: [String: JSONValue]
        var source = IdentitySource.userinfo
        switch combination.source {
        case .idToken:
            (mapping, object, source) = (.standard, ["sub": "s-1", "email": email, "email_verified": flag], .idToken)
        case .userinfo:
            (mapping, object) = (.standard, ["sub": "s-1", "email": email, "email_verified": flag])
        case .mappedFlag:
            mapping = ClaimMapping(email: .init("data.email"), emailVerified: .claim(.init("data.verified")!))
            object = ["sub": "s-1", "data": .object(["email": email, "verified": flag])]
        case .mappedEmailTopLevelFlag:
            mapping = ClaimMapping(email: .init("data.email"))
            object = ["sub": "s-1", "data": .object(["email": email]), "email_verified": flag]
        case .literal:
            mapping = ClaimMapping(email: .init("data.email"), emailVerified: .always(combination.flag))
            object = ["sub": "s-1", "data": .object(["email": email])]
        }
        let read = try mapping.identity(from: object, provider: combination.signer, source: source)
        return VerifiedIdentity(
            provider: read.provider, subject: read.subject, email: read.email, emailVerified: read.emailVerified,
            name: nil, source: source, rawClaims: [:], isPrivateRelayEmail: combination.relay,
            emailLinkable: combination.vouched && !combination.relay)
    }

    /// The victim's account: one identity holding the address, verified.
    static func holder(_ combination: Combination) -> UserAccount {
        let identity = LinkedIdentity(
            userID: victim, provider: combination.holderProvider, subject: "h-1", email: address, emailVerified: true,
            isPrivateEmail: combination.holderRelay, emailDisabled: false, name: nil, isDisabled: false,
            createdAt: now, updatedAt: now)
        return UserAccount(id: victim, createdAt: now, identities: [identity])
    }

    /// The rules as `docs/threat-model.md` states them.
    static func expected(_ combination: Combination) -> AccountDecision {
        switch combination.intent {
        case .register:
            return .create
        case .link:
            guard let authority = combination.authority else {
                return .refuse(.notSignedIn(provider: combination.signer))
            }
            guard authority != .ambientCookie else { return .refuse(.linkNotAuthorised(provider: combination.signer)) }
            return .link(to: current, byVerifiedEmail: false)
        case .login:
            let policy = combination.linkPolicy
            let verified = combination.source == .mappedEmailTopLevelFlag ? false : combination.flag
            let signerLinkable = verified && combination.vouched && !combination.relay
            let holderLinkable = combination.holderVouched && !combination.holderRelay
            let listed =
                policy.allows(provider: combination.signer) && policy.allows(provider: combination.holderProvider)
            return signerLinkable && holderLinkable && listed ? .link(to: victim, byVerifiedEmail: true) : .create
        }
    }

    /// What the rules decide, with the store read the resolver makes (the holders of the email when asked).
    static func decided(_ combination: Combination) throws -> AccountDecision {
        let identity = try identity(combination)
        var situation = AccountSituation(
            intent: combination.intent, provider: combination.signer, storedIdentity: nil,
            signedInUser: combination.authority == nil ? nil : current,
            linkAuthority: combination.authority ?? .flowBoundCookie, email: identity.email,
            emailLinkable: identity.emailLinkable)
        let rules = combination.rules
        if rules.emailToMatch(situation) != nil { situation.usersWithEmail = [holder(combination)] }
        return rules.decide(situation)
    }

    static var combinations: [Combination] {
        var all: [Combination] = []
        let flags = [false, true]
        let authorities: [LinkAuthority?] = [nil] + LinkAuthority.allCases.map { $0 }
        for intent in [SignInIntent.login, .register, .link] {
            for authority in authorities {
                for policy in 0...2 {
                    for signerListed in flags {
                        for holderListed in flags {
                            for source in EmailSource.allCases {
                                for flag in flags {
                                    for vouched in flags {
                                        for relay in flags {
                                            for holderVouched in flags {
                                                for holderRelay in flags {
                                                    all.append(
                                                        Combination(
                                                            intent: intent, authority: authority, policy: policy,
                                                            signerListed: signerListed, holderListed: holderListed,
                                                            source: source, flag: flag, vouched: vouched, relay: relay,
                                                            holderVouched: holderVouched, holderRelay: holderRelay))
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return all
    }

    @Test func everyCombinationIsDecidedAsTheThreatModelSays() throws {
        let all = Self.combinations
        #expect(all.count == 3 * 5 * 3 * 2 * 2 * 5 * 2 * 2 * 2 * 2 * 2)
        var mismatches: [String] = []
        var emailLinks = 0
        for combination in all {
            let decision = try Self.decided(combination)
            if case .link(_, byVerifiedEmail: true) = decision { emailLinks += 1 }
            let expected = Self.expected(combination)
            if decision != expected { mismatches.append("\(combination): expected \(expected), decided \(decision)") }
        }
        #expect(mismatches.count == 0, "\(mismatches.count) mismatches, first: \(mismatches.prefix(3))")
        // The table reaches both outcomes of a login: some combinations link by email, most do not.
        #expect(emailLinks > 0 && emailLinks < all.count / 10)
    }

    @Test func anAttackerThroughAnUnlistedProviderNeverReceivesTheVictimsSignIn() throws {
        // The reported case: the attacker signed up through an unlisted provider claiming the victim's address as
        // verified; the victim's first sign-in through a listed provider must not land in that user.
        let combination = Combination(
            intent: .login, authority: nil, policy: 2, signerListed: true, holderListed: false, source: .idToken,
            flag: true, vouched: true, relay: false, holderVouched: true, holderRelay: false)
        #expect(try Self.decided(combination) == .create)
        var listed = combination
        listed.holderListed = true
        #expect(try Self.decided(listed) == .link(to: Self.victim, byVerifiedEmail: true))
    }
}
