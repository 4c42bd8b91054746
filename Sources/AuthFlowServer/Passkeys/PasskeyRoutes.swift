import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowJSON
import AuthFlowWebAuthn
import Foundation

/// The routes of a passkey provider (`type: passkey`) under `{prefix}/{name}/`: `register/options`, `register`,
/// `authenticate/options`, `authenticate`, `credentials`, `credentials/rename`, `credentials/delete`. JSON in and
/// out; the router has enforced each route's rule (method, same-origin for browsers, JSON). The ceremony
/// travels sealed (``PasskeyCeremonySeal``) and is spent once in the spent-state set; WebAuthn's checks are
/// `AuthFlowWebAuthn`'s; credentials live in the account store (``PasskeyStore``). docs/http-api.md describes
/// the contracts.
struct PasskeyRoutes: SessionUsing {
    let sessions: SessionService
    let providers: ProviderDirectory
    let options: SignInServer.Options
    let stores: SignInServer.Stores
    /// `nil` when `server.secret` is too short to key it: every ceremony is then refused (500).
    let seal: PasskeyCeremonySeal?
    let rateLimiter: RateLimiter
    let clock: any WallClock
    let random: BufferedRandom
    let logger: any ServerLogger

    /// The largest body of a passkey route: a registration's attestation object with a certificate chain fits.
    static let maximumBodyBytes = 64 * 1024

    /// The passkey store: the account store, when it keeps passkeys (memory and the SQL stores do).
    var passkeys: (any PasskeyStore)? { stores.accounts as? any PasskeyStore }

    /// `POST {prefix}/{name}/register/options` `{"name", "display_name"}`: a registration ceremony for the signed-in
    /// user (the passkey joins that user; names default from the account) or, signed out, for a new user
    /// (refused `signup_disabled` when `server.signup` is false; `name` required).
    func registerOptions(_ request: HTTPServerRequest, provider name: String) async throws(ServerError)
        -> HTTPServerResponse
    {
        let relyingParty = try self.relyingParty(name)
        try await rateLimiter.check(request, kind: .start)
        let body = try PasskeyRequestBody(request, provider: name)
        let (seal, passkeys) = try ready(name)
        var user: PasskeyCeremony.User
        var exclude: [[UInt8]] = []
        if let current = try await currentSession(request) {
            let userID = current.record.userID
            let account = try await storing("read the user") { () async throws(StoreError) in
                try await stores.accounts.user(userID)
            }
            let own = account?.identities.first { $0.provider == name }
            let handle = own.flatMap { try? Base64URL.decode($0.subject) } ?? random.bytes(32)
            let fallback = current.identity.email ?? current.identity.name ?? userID.rawValue
            let userName = try body.string("name") ?? fallback
            user = .init(
                handle: handle, name: userName,
                displayName: try body.string("display_name") ?? current.identity.name
                    ?? userName, userID: userID)
            exclude = try await storing("read the passkeys") { () async throws(StoreError) in
                try await passkeys.passkeys(of: userID)
            }.filter { $0.identity.provider == name }.map(\.id)
        } else {
            guard options.signup else { throw LoginRoutes.signupDisabled }
            guard let userName = try body.string("name") else {
                throw body.refuse("expected a string 'name', found none")
            }
            user = .init(
                handle: random.bytes(32), name: userName, displayName: try body.string("display_name") ?? userName,
                userID: nil)
        }
        let ceremony = PasskeyCeremonySeal.ceremony(
            .registration, provider: name, user: user, now: clock.now(), lifetime: seal.lifetime, random: random)
        let publicKey = WebAuthnOptions.creation(
            relyingParty: relyingParty,
            user: WebAuthnUser(handle: user.handle, name: user.name, displayName: user.displayName),
            challenge: ceremony.challenge, exclude: exclude, timeout: .seconds(seal.lifetime))
        return ResponseFactory.json(.object(["publicKey": publicKey, "ceremony": .string(try seal.seal(ceremony))]))
    }

    /// `POST {prefix}/{name}/authenticate/options` `{}`: an authentication ceremony with an empty
    /// `allowCredentials` (discoverable credentials, so the browser's autofill works).
    func authenticateOptions(_ request: HTTPServerRequest, provider name: String) async throws(ServerError)
        -> HTTPServerResponse
    {
        let relyingParty = try self.relyingParty(name)
        try await rateLimiter.check(request, kind: .start)
        _ = try PasskeyRequestBody(request, provider: name)
        let (seal, _) = try ready(name)
        let ceremony = PasskeyCeremonySeal.ceremony(
            .authentication, provider: name, user: nil, now: clock.now(), lifetime: seal.lifetime, random: random)
        let publicKey = WebAuthnOptions.request(
            relyingParty: relyingParty, challenge: ceremony.challenge, timeout: .seconds(seal.lifetime))
        return ResponseFactory.json(.object(["publicKey": publicKey, "ceremony": .string(try seal.seal(ceremony))]))
    }

    /// The relying party of passkey provider `name`.
    ///
    /// - Throws: ``ServerError`` `unknown_provider` (400), `not_found` (404) for a provider that is not a passkey
    ///   provider.
    func relyingParty(_ name: String) throws(ServerError) -> WebAuthnRelyingParty {
        let provider = try providers.provider(name)
        guard !provider.usesOAuth, let settings = provider.passkeyRelyingParty else {
            throw ServerError(.notFound, "expected a passkey provider, found '\(name)'", status: 404, provider: name)
        }
        return WebAuthnRelyingParty(
            id: settings.rpID, name: settings.rpName, origins: settings.origins,
            userVerification: settings.userVerification == .required ? .required : .preferred,
            attestation: settings.attestation == .none ? .none : .direct)
    }

    /// The ceremony seal and the passkey store.
    ///
    /// - Throws: ``ServerError`` `server_error` (500) when either is missing.
    func ready(_ name: String) throws(ServerError) -> (PasskeyCeremonySeal, any PasskeyStore) {
        guard let seal else {
            throw ServerError(
                .serverError,
                "expected server.secret of at least 32 bytes to seal passkey ceremonies, found a shorter one",
                status: 500, provider: name)
        }
        guard let passkeys else {
            throw ServerError(
                .serverError, "expected an account store that keeps passkeys, found one that does not", status: 500,
                provider: name)
        }
        return (seal, passkeys)
    }
}
