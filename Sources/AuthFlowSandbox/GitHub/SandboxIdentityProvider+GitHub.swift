import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

extension SandboxIdentityProvider {
    // MARK: - Authorization

    /// GitHub's authorization rules: a registered client; `redirect_uri` optional (the first registered one
    /// then) but exact when sent; PKCE only with `code_challenge_method=S256`.
    func validateGitHubAuthorization(_ parameters: Parameters) -> Result<AuthorizationRequest, AuthorizationRefusal> {
        guard let clientID = parameters["client_id"] else {
            return .failure(AuthorizationRefusal("invalid_request", "missing required parameter client_id"))
        }
        guard let client = state.withLock({ $0.client(.github, clientID) }) else {
            return .failure(
                AuthorizationRefusal(
                    "invalid_client", "no application with client_id '\(clip(clientID))' is registered", status: 404))
        }
        let redirectURI: String
        if let given = parameters["redirect_uri"] {
            guard client.redirectURIs.contains(given) else {
                return .failure(
                    AuthorizationRefusal(
                        "redirect_uri_mismatch",
                        "The redirect_uri '\(clip(given, limit: 200))' is not associated with this application."))
            }
            redirectURI = given
        } else {
            redirectURI = client.redirectURIs[0]
        }
        if parameters["code_challenge"] != nil {
            guard parameters["code_challenge_method"] == "S256" else {
                return .failure(
                    AuthorizationRefusal(
                        "invalid_request",
                        "code_challenge_method must be S256 (GitHub accepts no other), found "
                            + (parameters["code_challenge_method"].map { "'\(clip($0))'" } ?? "none")))
            }
        } else if parameters["code_challenge_method"] != nil {
            return .failure(
                AuthorizationRefusal("invalid_request", "code_challenge_method was sent without code_challenge"))
        }
        let challenge: PKCEChallenge?
        switch Self.challenge(parameters) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let value): challenge = value
        }
        if let prompt = parameters["prompt"], prompt != "select_account" {
            return .failure(
                AuthorizationRefusal("invalid_request", "prompt must be select_account, found '\(clip(prompt))'"))
        }
        return .success(
            AuthorizationRequest(
                provider: .github, clientID: client.clientID, redirectURI: redirectURI,
                scopes: Self.scopes(parameters["scope"], commaSeparated: true), state: parameters["state"], nonce: nil,
                challenge: challenge))
    }

    // MARK: - Token endpoint

    /// `POST /github/login/oauth/access_token`: `client_id` and `client_secret` in the body (form or JSON), a
    /// single-use code bound to its redirect URI and PKCE, or (GitHub Apps) a rotating refresh token. The answer
    /// is form-encoded unless the request accepts `application/json`, and refusals come with HTTP 200 as
    /// `error`, `error_description`, `error_uri`.
    func handleGitHubToken(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.github, \.token) }
        let reply = GitHubTokenReply(
            json: request.headers["Accept"]?.lowercased().contains("application/json") == true)
        let form: Parameters
        switch Self.gitHubTokenForm(request) {
        case .failure(let problem): return reply.refuse("invalid_request", problem.text)
        case .success(let parsed): form = parsed
        }
        if request.headers["Authorization"] != nil {
            return reply.refuse(
                "incorrect_client_credentials",
                "send client_id and client_secret in the body; this endpoint takes no Authorization header")
        }
        guard let clientID = form["client_id"], let client = state.withLock({ $0.client(.github, clientID) }),
            let expected = client.clientSecret, let secret = form["client_secret"], constantTimeEquals(secret, expected)
        else {
            return reply.refuse(
                "incorrect_client_credentials", "The client_id and/or client_secret passed are incorrect.")
        }
        switch form["grant_type"] {
        case nil, "authorization_code"?:
            return redeemGitHubCode(form, client: client, reply: reply)
        case "refresh_token"?:
            return refreshGitHubGrant(form, client: client, reply: reply)
        case let other?:
            return reply.refuse(
                "unsupported_grant_type",
                "grant_type must be authorization_code or refresh_token, found '\(clip(other))'")
        }
    }

    /// How GitHub's token endpoint answers: form-encoded unless the request accepts `application/json`, refusals
    /// with HTTP 200 as `error`, `error_description`, `error_uri`, never cached.
    struct GitHubTokenReply {
        /// Whether the request accepts `application/json`.
        let json: Bool

        func answer(_ fields: [(String, JSONValue)]) -> HTTPServerResponse {
            var response: HTTPServerResponse
            if json {
                response = HTTPServerResponse.json(
                    JSONValue.object(Dictionary(fields, uniquingKeysWith: { $1 })).serialized())
            } else {
                let pairs = fields.map { name, value in
                    (name, value.stringValue ?? value.int64Value.map(String.init) ?? value.serialized())
                }
                response = HTTPServerResponse(
                    status: 200, headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8"],
                    body: Array(FormURLEncoding.encode(pairs).utf8))
            }
            response.headers["Cache-Control"] = "no-store"
            return response
        }

        func refuse(_ error: String, _ description: String) -> HTTPServerResponse {
            answer([
                ("error", .string(error)), ("error_description", .string(description)),
                (
                    "error_uri",
                    .string(
                        "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors"
                    )
                ),
            ])
        }
    }

    /// The token request's parameters, from a form or a JSON object body.
    static func gitHubTokenForm(_ request: HTTPServerRequest) -> Result<Parameters, GitHubRefusal> {
        let form: Parameters
        if request.mediaType == "application/json" {
            guard let body = try? request.jsonBody(), let object = (try? JSONValue.parse(body))?.objectValue else {
                return .failure(GitHubRefusal(text: "the JSON body is not an object"))
            }
            form = Parameters(object.compactMap { name, value in value.stringValue.map { (name, $0) } })
        } else if let parsed = Parameters.form(of: request) {
            form = parsed
        } else {
            return .failure(
                GitHubRefusal(text: "expected client_id, client_secret and code in a form or JSON body"))
        }
        if let problem = form.shapeProblem { return .failure(GitHubRefusal(text: problem)) }
        return .success(form)
    }

    /// The authorization-code grant: a single-use code bound to its redirect URI (optional) and PKCE.
    func redeemGitHubCode(_ form: Parameters, client: SandboxClient, reply: GitHubTokenReply) -> HTTPServerResponse {
        guard let code = form["code"] else {
            return reply.refuse("bad_verification_code", "The code passed is incorrect or expired.")
        }
        let now = self.now
        let redeemed = state.withLock {
            $0.redeemCode(
                code, provider: .github, clientID: client.clientID, redirectURI: form["redirect_uri"],
                verifier: form["code_verifier"], policy: .init(redirectURIOptional: true), now: now)
        }
        switch redeemed {
        case .failure(let failure):
            if failure.description.hasPrefix("redirect_uri") {
                return reply.refuse(
                    "redirect_uri_mismatch", "The redirect_uri MUST match the registered callback URL.")
            }
            return reply.refuse(
                "bad_verification_code", "The code passed is incorrect or expired: \(failure.description)")
        case .success(let record):
            let tokens = issueGitHubTokens(client: client, code: code, record: record)
            return reply.answer(gitHubTokenFields(client: client, scopes: record.request.scopes, tokens: tokens))
        }
    }

    /// The refresh-token grant (GitHub Apps' expiring tokens only): the refresh token rotates.
    func refreshGitHubGrant(_ form: Parameters, client: SandboxClient, reply: GitHubTokenReply) -> HTTPServerResponse {
        state.withLock { $0.count(.github, \.refreshGrants) }
        guard client.issuesExpiringTokens else {
            return reply.refuse("unsupported_grant_type", "this OAuth app's tokens do not expire and have no refresh")
        }
        guard let refreshToken = form["refresh_token"] else {
            return reply.refuse("bad_refresh_token", "The refresh token passed is incorrect or expired.")
        }
        switch rotateGitHubRefreshToken(refreshToken, client: client) {
        case .failure(let problem): return reply.refuse("bad_refresh_token", problem.text)
        case .success(let rotated):
            return reply.answer(gitHubTokenFields(client: client, scopes: rotated.grant.scopes, tokens: rotated.tokens))
        }
    }

    struct GitHubTokens {
        let accessToken: String
        let refreshToken: String?
    }

    func gitHubTokenFields(client: SandboxClient, scopes: [String], tokens: GitHubTokens) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [("access_token", .string(tokens.accessToken))]
        if client.issuesExpiringTokens, let refresh = tokens.refreshToken {
            fields += [
                ("expires_in", .integer(GitHubEmulator.expiringTokenLifetime)), ("refresh_token", .string(refresh)),
                ("refresh_token_expires_in", .integer(GitHubEmulator.refreshTokenLifetime)), ("scope", .string("")),
            ]
        } else {
            fields.append(("scope", .string(scopes.joined(separator: ","))))
        }
        fields.append(("token_type", .string("bearer")))
        return fields
    }

    /// The grant for a redeemed code: a `gho_` token (OAuth app), or a `ghu_` token and a `ghr_` refresh token
    /// (GitHub App).
    func issueGitHubTokens(client: SandboxClient, code: String, record: CodeRecord) -> GitHubTokens {
        let grantID = randomToken()
        let expiring = client.issuesExpiringTokens
        let accessToken = randomToken(prefix: expiring ? "ghu_" : "gho_")
        let refreshToken = expiring ? randomToken(prefix: "ghr_") : nil
        let lifetime = expiring ? GitHubEmulator.expiringTokenLifetime : GitHubEmulator.oauthAppTokenLifetime
        let expiresAt = now.addingTimeInterval(Double(lifetime))
        state.withLock { state in
            _ = state.createGrant(code: code, record: record, id: grantID)
            state.accessTokens[accessToken] = AccessTokenRecord(grantID: grantID, expiresAt: expiresAt)
            if let refreshToken { state.refreshTokens[refreshToken] = RefreshTokenRecord(grantID: grantID) }
        }
        return GitHubTokens(accessToken: accessToken, refreshToken: refreshToken)
    }

    /// GitHub App refresh: a new token pair; the used refresh token and every earlier access token of the grant
    /// stop working.
    func rotateGitHubRefreshToken(_ refreshToken: String, client: SandboxClient)
        -> Result<(grant: GrantRecord, tokens: GitHubTokens), GitHubRefusal>
    {
        let newAccess = randomToken(prefix: "ghu_")
        let newRefresh = randomToken(prefix: "ghr_")
        let expiresAt = now.addingTimeInterval(Double(GitHubEmulator.expiringTokenLifetime))
        return state.withLock { state in
            guard let record = state.refreshTokens[refreshToken], !record.consumed,
                let grant = state.liveGrant(refreshToken: refreshToken, provider: .github, clientID: client.clientID)
            else {
                return .failure(GitHubRefusal(text: "The refresh token passed is incorrect, already used or expired."))
            }
            state.refreshTokens[refreshToken]?.consumed = true
            for (token, access) in state.accessTokens where access.grantID == grant.id {
                state.accessTokens[token]?.revoked = true
            }
            state.refreshTokens[newRefresh] = RefreshTokenRecord(grantID: grant.id)
            state.accessTokens[newAccess] = AccessTokenRecord(grantID: grant.id, expiresAt: expiresAt)
            return .success((grant, GitHubTokens(accessToken: newAccess, refreshToken: newRefresh)))
        }
    }

    // MARK: - REST API

    /// Whether a grant's tokens are GitHub App user tokens (no OAuth scopes, permissions instead).
    func isGitHubApp(_ grant: GrantRecord) -> Bool {
        state.withLock { $0.client(.github, grant.clientID)?.issuesExpiringTokens == true }
    }

    /// A REST API answer: JSON with GitHub's headers.
    func gitHubAPIResponse(_ body: JSONValue, status: Int = 200, scopes: [String]? = nil) -> HTTPServerResponse {
        var response = HTTPServerResponse.json(body.serialized(), status: status)
        response.headers["Cache-Control"] = "private, max-age=60"
        response.headers["X-GitHub-Api-Version-Selected"] = "2022-11-28"
        if let scopes { response.headers["X-OAuth-Scopes"] = scopes.joined(separator: ", ") }
        return response
    }

    func gitHubAPIError(_ message: String, status: Int) -> HTTPServerResponse {
        gitHubAPIResponse(
            .object([
                "message": .string(message), "documentation_url": .string("https://docs.github.com/rest"),
                "status": .string(String(status)),
            ]), status: status)
    }

    /// The grant behind the request's `Authorization: Bearer|token` header, or the API's refusal: 403 without a
    /// `User-Agent`, 401 without credentials or with a token that is unknown, revoked or expired.
    func gitHubGrant(_ request: HTTPServerRequest) -> GitHubAPIAccess {
        guard let agent = request.headers["User-Agent"], !agent.isEmpty else {
            return .refused(
                gitHubAPIError(
                    "Request forbidden by administrative rules. Please make sure your request has a User-Agent header",
                    status: 403))
        }
        guard let header = request.headers["Authorization"] else {
            return .refused(gitHubAPIError("Requires authentication", status: 401))
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, ["bearer", "token"].contains(parts[0].lowercased()) else {
            return .refused(gitHubAPIError("Bad credentials", status: 401))
        }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        let now = self.now
        switch state.withLock({ $0.liveGrant(accessToken: token, provider: .github, now: now) }) {
        case .failure: return .refused(gitHubAPIError("Bad credentials", status: 401))
        case .success(let grant): return .granted(grant)
        }
    }

    /// `GET /github/user`: numeric `id`, `login`, `name`, and `email` only when public (else `null`).
    func handleGitHubUser(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.github, \.userinfo) }
        let grant: GrantRecord
        switch gitHubGrant(request) {
        case .refused(let response): return response
        case .granted(let value): grant = value
        }
        let identity = grant.identity
        let id = Int64(identity.subject) ?? 0
        let login = identity.username ?? "user-\(id)"
        let body: JSONValue = .object([
            "login": .string(login), "id": .integer(id),
            "node_id": .string("U_" + Base64URL.encode(Array(identity.subject.utf8))),
            "avatar_url": .string("https://avatars.githubusercontent.com/u/\(id)?v=4"),
            "html_url": .string("https://github.com/\(login)"), "type": .string("User"),
            "site_admin": .bool(false), "name": identity.name.map(JSONValue.string) ?? .null,
            "email": identity.emailIsPublic ? identity.email.map(JSONValue.string) ?? .null : .null,
        ])
        return gitHubAPIResponse(body, scopes: isGitHubApp(grant) ? nil : grant.scopes)
    }

    /// `GET /github/user/emails`: every address with `primary`, `verified` and `visibility`. An OAuth app token
    /// needs the `user:email` or `user` scope (404 otherwise); a GitHub App token is let through.
    func handleGitHubEmails(_ request: HTTPServerRequest) -> HTTPServerResponse {
        state.withLock { $0.count(.github, \.userinfo) }
        let grant: GrantRecord
        switch gitHubGrant(request) {
        case .refused(let response): return response
        case .granted(let value): grant = value
        }
        let app = isGitHubApp(grant)
        if !app, !grant.scopes.contains("user:email"), !grant.scopes.contains("user") {
            return gitHubAPIError("Not Found", status: 404)
        }
        let identity = grant.identity
        var entries: [JSONValue] = []
        if let email = identity.email {
            entries.append(
                .object([
                    "email": .string(email), "primary": .bool(true), "verified": .bool(identity.emailVerified),
                    "visibility": .string(identity.emailIsPublic ? "public" : "private"),
                ]))
        }
        for extra in identity.additionalEmails {
            entries.append(
                .object([
                    "email": .string(extra.address), "primary": .bool(false), "verified": .bool(extra.verified),
                    "visibility": .null,
                ]))
        }
        return gitHubAPIResponse(.array(entries), scopes: app ? nil : grant.scopes)
    }

    /// `GET /github/user/orgs` and `/github/user/teams`, from the identity's `groups` (`ORG` an organization,
    /// `ORG/TEAM-SLUG` a team, whose organization the user belongs to as well): organization objects with
    /// `login`, team objects with `slug`, `name` and `organization`. An OAuth app token needs `read:org` or
    /// `user` (403 otherwise, so a relying party that forgot the scope is refused rather than told "none");
    /// `per_page` (default 30, at most 100) and `page` as GitHub pages its lists.
    func handleGitHubMemberships(_ request: HTTPServerRequest, teams: Bool) -> HTTPServerResponse {
        state.withLock { $0.count(.github, \.userinfo) }
        let grant: GrantRecord
        switch gitHubGrant(request) {
        case .refused(let response): return response
        case .granted(let value): grant = value
        }
        let app = isGitHubApp(grant)
        if !app, !grant.scopes.contains("read:org"), !grant.scopes.contains("user") {
            return gitHubAPIError("Resource not accessible without the read:org scope", status: 403)
        }
        let groups = grant.identity.groups
        var organizations: [String] = []
        for group in groups {
            let org = String(group.split(separator: "/").first ?? "")
            if !org.isEmpty, !organizations.contains(org) { organizations.append(org) }
        }
        let entries: [JSONValue] =
            teams
            ? groups.filter { $0.contains("/") }.map { Self.gitHubTeam($0) }
            : organizations.map { Self.gitHubOrganization($0) }
        let perPage = min(max(Int(request.queryValue("per_page") ?? "") ?? 30, 1), 100)
        let page = max(Int(request.queryValue("page") ?? "") ?? 1, 1)
        let start = min((page - 1) * perPage, entries.count)
        let slice = Array(entries[start..<min(start + perPage, entries.count)])
        return gitHubAPIResponse(.array(slice), scopes: app ? nil : grant.scopes)
    }

    static func gitHubOrganization(_ login: String) -> JSONValue {
        .object([
            "login": .string(login), "id": .integer(stableID(login)),
            "url": .string("https://api.github.com/orgs/\(login)"), "description": .null,
        ])
    }

    /// A positive id that is the same for a name in every run (FNV-1a of its bytes).
    static func stableID(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int64(hash % 1_000_000_000) + 1
    }

    static func gitHubTeam(_ name: String) -> JSONValue {
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        return .object([
            "slug": .string(parts[1]), "name": .string(parts[1]),
            "id": .integer(stableID(name)), "privacy": .string("closed"),
            "organization": gitHubOrganization(parts[0]),
        ])
    }

    /// `DELETE /github/applications/{client_id}/grant` (the whole grant: every token of the user for the app)
    /// or `…/token` (one token): HTTP Basic `client_id:client_secret` of that app and a JSON body
    /// `{"access_token": …}`; 204, or 404 for a token the app does not own, 401 for bad credentials, 422 without
    /// a token.
    func handleGitHubRevocation(_ request: HTTPServerRequest, clientID: String, wholeGrant: Bool)
        -> HTTPServerResponse
    {
        state.withLock { $0.count(.github, \.revocation) }
        guard case .success(let credentials)? = BasicCredentials.parse(request), credentials.clientID == clientID,
            let client = state.withLock({ $0.client(.github, clientID) }), let expected = client.clientSecret,
            constantTimeEquals(credentials.clientSecret, expected)
        else {
            return gitHubAPIError("Bad credentials", status: 401)
        }
        guard let body = try? request.jsonBody(),
            let token = (try? JSONValue.parse(body))?["access_token"]?.stringValue,
            !token.isEmpty
        else {
            return gitHubAPIError("Invalid request.\n\n\"access_token\" wasn't supplied.", status: 422)
        }
        let owned = state.withLock { state -> Bool in
            guard let record = state.accessTokens[token], let grant = state.grants[record.grantID] else { return false }
            return grant.provider == .github && grant.clientID == clientID && !record.revoked && !grant.revoked
        }
        guard owned else { return gitHubAPIError("Not Found", status: 404) }
        revoke(
            token: token, hint: wholeGrant ? "grant" : "token", provider: .github, clientID: clientID,
            rules: RevocationRules(accessTokenRevokesGrant: wholeGrant))
        if wholeGrant {
            // The app's authorization for the user goes: every token of every sign-in of that user with the app.
            state.withLock { state in
                guard let record = state.accessTokens[token],
                    let subject = state.grants[record.grantID]?.identity.subject
                else { return }
                for grant in state.grants.values
                where grant.provider == .github && grant.clientID == clientID && grant.identity.subject == subject {
                    state.revokeGrant(grant.id)
                }
            }
        }
        return HTTPServerResponse.empty(status: 204)
    }
}

/// A refusal of GitHub's token endpoint, in its words.
struct GitHubRefusal: Error {
    let text: String
}

/// Whether a REST API request may go on, and as which grant.
enum GitHubAPIAccess {
    case granted(GrantRecord)
    case refused(HTTPServerResponse)
}
