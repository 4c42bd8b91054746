import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowJOSE
import Foundation

/// A consent page that was shown and not yet answered.
/// A pushed authorization request (RFC 9126) waiting for the browser, under its `request_uri`.
struct PushedRequest: Sendable {
    let request: AuthorizationRequest
    let expiresAt: Date
}

struct PendingConsent: Sendable {
    let request: AuthorizationRequest
    let expiresAt: Date
}

/// An authorization code and what it was bound to.
struct CodeRecord: Sendable {
    let request: AuthorizationRequest
    let identity: SandboxIdentity
    let authTime: Int64
    let expiresAt: Date
    /// Google: whether redeeming it yields a refresh token (offline access on a first or forced consent).
    let issuesRefreshToken: Bool
    var redeemed = false
    /// The grant created when the code was redeemed; revoked when the code is replayed.
    var grantID: String?
}

/// What a user granted a client: every access and refresh token hangs off one grant.
struct GrantRecord: Sendable {
    let id: String
    let provider: SandboxProvider
    let clientID: String
    let scopes: [String]
    let identity: SandboxIdentity
    let authTime: Int64
    var revoked = false
}

struct AccessTokenRecord: Sendable {
    let grantID: String
    let expiresAt: Date
    var revoked = false
}

struct RefreshTokenRecord: Sendable {
    let grantID: String
    /// X rotates refresh tokens: a used one is consumed, and presenting it again revokes the grant.
    var consumed = false
}

/// Which (client, subject) pairs have consented before; Apple sends `user` only the first time.
struct ConsentKey: Hashable, Sendable {
    let provider: SandboxProvider
    let clientID: String
    let subject: String
}

/// Everything the sandbox remembers, guarded by one `Mutex` in ``SandboxIdentityProvider``.
struct SandboxState: Sendable {
    static let consentTicketLifetime: Double = 600
    /// Consent tickets, codes and spent assertions kept at most, each (``SandboxConfiguration/maximumPendingEntries``).
    var maximumPendingEntries = SandboxConfiguration.defaultMaximumPendingEntries

    var server: HTTPServer?
    var starting = false
    var listenerBaseURL: String?
    var clients: [SandboxProvider: [String: SandboxClient]] = [:]
    var pendingConsents: [String: PendingConsent] = [:]
    var codes: [String: CodeRecord] = [:]
    var grants: [String: GrantRecord] = [:]
    var accessTokens: [String: AccessTokenRecord] = [:]
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    var consents: Set<ConsentKey> = []
    var revocations: [SandboxProvider: [SandboxRevocation]] = [:]
    var counts: [SandboxProvider: SandboxRequestCounts] = [:]
    var keyRings: [SandboxProvider: SigningKeyRing] = [:]
    var autoConsent: [SandboxProvider: SandboxIdentity] = [:]
    /// `private_key_jwt` assertions already used, by client id and `jti`, until they expire.
    var spentAssertions: [String: Date] = [:]
    var logouts: [SandboxProvider: [SandboxLogout]] = [:]
    /// Pushed authorization requests by `request_uri`, each taken once.
    var pushedRequests: [String: PushedRequest] = [:]
    /// The FAPI mode's current DPoP nonce (RFC 9449 §8), made on first use.
    var dpopNonce: String?
    /// Used DPoP proof `jti`s, until when they are remembered.
    var spentDPoPProofs: [String: Date] = [:]
    /// The DPoP key thumbprint each grant's tokens are bound to (`cnf.jkt`), by grant id.
    var dpopBindings: [String: String] = [:]

    func client(_ provider: SandboxProvider, _ clientID: String) -> SandboxClient? {
        clients[provider]?[clientID]
    }

    /// Drops expired consent tickets, codes and access tokens so memory stays bounded.
    mutating func purgeExpired(now: Date) {
        pendingConsents = pendingConsents.filter { $0.value.expiresAt > now }
        // Redeemed codes are kept a little longer than their lifetime so a replay is recognised as one.
        codes = codes.filter { $0.value.expiresAt.addingTimeInterval(3600) > now }
        accessTokens = accessTokens.filter { $0.value.expiresAt.addingTimeInterval(3600) > now }
        spentAssertions = spentAssertions.filter { $0.value > now }
        pushedRequests = pushedRequests.filter { $0.value.expiresAt > now }
    }

    /// Stores a pushed authorization request; refuses when too many are pending.
    mutating func addPushedRequest(_ requestURI: String, _ pushed: PushedRequest, now: Date) -> Bool {
        if pushedRequests.count >= maximumPendingEntries { purgeExpired(now: now) }
        guard pushedRequests.count < maximumPendingEntries else { return false }
        pushedRequests[requestURI] = pushed
        return true
    }

    /// Takes a pushed authorization request (single use, whatever the outcome); `nil` when unknown or used.
    mutating func takePushedRequest(_ requestURI: String) -> PushedRequest? {
        pushedRequests.removeValue(forKey: requestURI)
    }

    /// Marks a client assertion's `jti` as used until `expiresAt`; `false` when it was used before (a replay)
    /// or too many are remembered.
    mutating func spendAssertion(clientID: String, jti: String, expiresAt: Date, now: Date) -> Bool {
        let key = clientID + "\u{0}" + jti
        if let until = spentAssertions[key], until > now { return false }
        if spentAssertions.count >= maximumPendingEntries { purgeExpired(now: now) }
        guard spentAssertions.count < maximumPendingEntries else { return false }
        spentAssertions[key] = expiresAt
        return true
    }

    /// Stores a consent ticket; refuses when too many are pending (a bound against memory exhaustion).
    mutating func addPendingConsent(_ ticket: String, _ pending: PendingConsent, now: Date) -> Bool {
        if pendingConsents.count >= maximumPendingEntries { purgeExpired(now: now) }
        guard pendingConsents.count < maximumPendingEntries else { return false }
        pendingConsents[ticket] = pending
        return true
    }

    /// Takes a consent ticket (single use); `nil` when unknown, used, expired or for another provider.
    mutating func takePendingConsent(_ ticket: String, provider: SandboxProvider, now: Date) -> AuthorizationRequest? {
        guard let pending = pendingConsents.removeValue(forKey: ticket) else { return nil }
        guard pending.expiresAt > now, pending.request.provider == provider else { return nil }
        return pending.request
    }

    /// Stores a new code; refuses when too many are outstanding.
    mutating func addCode(_ code: String, _ record: CodeRecord, now: Date) -> Bool {
        if codes.count >= maximumPendingEntries { purgeExpired(now: now) }
        guard codes.count < maximumPendingEntries else { return false }
        codes[code] = record
        return true
    }

    /// The rules that differ between providers when a code is redeemed.
    struct RedemptionPolicy {
        /// Apple ignores a `code_verifier` when no challenge was sent; OAuth 2.1 servers refuse it.
        var ignoresUnexpectedVerifier = false
        /// X answers a missing verifier with `invalid_request` rather than `invalid_grant`.
        var missingVerifierIsInvalidRequest = false
        /// GitHub: `redirect_uri` may be left out of the code exchange (when sent, it must still match).
        var redirectURIOptional = false
    }

    /// Redeems an authorization code for `clientID`: single use, unexpired, same redirect URI, PKCE.
    ///
    /// A code that matches the client is burnt by any attempt, so a wrong verifier cannot be retried; a
    /// replayed code also revokes every token issued from it (RFC 6749 §4.1.2).
    mutating func redeemCode(
        _ code: String, provider: SandboxProvider, clientID: String, redirectURI: String?, verifier: String?,
        policy: RedemptionPolicy, now: Date
    ) -> Result<CodeRecord, OAuthFailure> {
        guard var record = codes[code], record.request.provider == provider else {
            return .failure(.invalidGrant("the authorization code is unknown", graphSubcode: 36_009))
        }
        guard record.request.clientID == clientID else {
            return .failure(.invalidGrant("the authorization code was issued to another client"))
        }
        guard !record.redeemed else {
            if let grantID = record.grantID { revokeGrant(grantID) }
            return .failure(
                .invalidGrant(
                    "the authorization code has already been used; tokens issued from it are revoked",
                    graphSubcode: 36_009))
        }
        if record.request.challenge != nil, verifier == nil, policy.missingVerifierIsInvalidRequest {
            // Refused before the code is burnt: the request is incomplete, not a wrong guess.
            return .failure(.invalidRequest("missing required parameter code_verifier (a code_challenge was sent)"))
        }
        record.redeemed = true
        codes[code] = record
        guard record.expiresAt > now else {
            return .failure(.invalidGrant("the authorization code has expired", graphSubcode: 36_007))
        }
        // A native app's code (Apple) had no redirect URI: it is redeemed without one.
        let omitted = policy.redirectURIOptional || record.request.redirectURI.isEmpty
        guard let redirectURI = redirectURI ?? (omitted ? record.request.redirectURI : nil) else {
            return .failure(.invalidRequest("missing required parameter redirect_uri"))
        }
        guard redirectURI == record.request.redirectURI else {
            return .failure(
                .invalidGrant(
                    "redirect_uri must be identical to the one of the authorization request", graphSubcode: 36_008))
        }
        switch (record.request.challenge, verifier) {
        case (let challenge?, let verifier?):
            guard challenge.isSatisfied(by: verifier) else {
                return .failure(.invalidGrant("code_verifier does not match the code_challenge"))
            }
        case (.some, nil):
            return .failure(.invalidGrant("code_verifier is required because a code_challenge was sent"))
        case (nil, .some):
            if !policy.ignoresUnexpectedVerifier {
                return .failure(
                    .invalidGrant("code_verifier was sent but the authorization request had no code_challenge"))
            }
        case (nil, nil):
            break
        }
        return .success(record)
    }

    /// Creates the grant for a redeemed code and links the code to it.
    mutating func createGrant(code: String, record: CodeRecord, id: String) -> GrantRecord {
        let grant = GrantRecord(
            id: id, provider: record.request.provider, clientID: record.request.clientID, scopes: record.request.scopes,
            identity: record.identity, authTime: record.authTime)
        grants[id] = grant
        codes[code]?.grantID = id
        return grant
    }

    /// Revokes a grant and with it every access and refresh token issued under it.
    mutating func revokeGrant(_ grantID: String) {
        grants[grantID]?.revoked = true
        for (token, record) in accessTokens where record.grantID == grantID { accessTokens[token]?.revoked = true }
        refreshTokens = refreshTokens.filter { $0.value.grantID != grantID }
    }

    /// The grant behind a live access token of `provider`, or why there is none.
    func liveGrant(accessToken: String, provider: SandboxProvider, now: Date) -> Result<GrantRecord, AccessTokenProblem>
    {
        guard let record = accessTokens[accessToken], let grant = grants[record.grantID], grant.provider == provider
        else {
            return .failure(.unknown)
        }
        guard !record.revoked, !grant.revoked else { return .failure(.revoked) }
        guard record.expiresAt > now else { return .failure(.expired) }
        return .success(grant)
    }

    /// The live grant behind a refresh token issued to `clientID`.
    func liveGrant(refreshToken: String, provider: SandboxProvider, clientID: String) -> GrantRecord? {
        guard let record = refreshTokens[refreshToken], let grant = grants[record.grantID], grant.provider == provider,
            grant.clientID == clientID, !grant.revoked
        else { return nil }
        return grant
    }

    /// Forgets that the user consented (Apple then sends `user` again) and revokes their grants for that client.
    mutating func withdrawConsent(provider: SandboxProvider, clientID: String, subject: String) {
        consents.remove(ConsentKey(provider: provider, clientID: clientID, subject: subject))
        for grant in grants.values
        where grant.provider == provider && grant.clientID == clientID && grant.identity.subject == subject {
            revokeGrant(grant.id)
        }
    }

    mutating func count(_ provider: SandboxProvider, _ endpoint: WritableKeyPath<SandboxRequestCounts, Int>) {
        counts[provider, default: SandboxRequestCounts()][keyPath: endpoint] += 1
    }
}

/// Why an access token does not authorise a call.
enum AccessTokenProblem: Error, Sendable {
    case unknown, revoked, expired

    var description: String {
        switch self {
        case .unknown: "the access token is unknown"
        case .revoked: "the access token has been revoked"
        case .expired: "the access token has expired"
        }
    }
}
