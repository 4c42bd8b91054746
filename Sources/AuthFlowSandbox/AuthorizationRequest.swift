/// A validated request to one of the emulated authorization endpoints, waiting for the user's decision.
struct AuthorizationRequest: Sendable {
    /// How the result goes back to the client.
    enum ResponseMode: String, Sendable {
        case query
        case fragment
        case formPost = "form_post"
    }

    let provider: SandboxProvider
    let clientID: String
    let redirectURI: String
    /// The `response_type` values, e.g. `["code"]` or `["code", "id_token"]` (Apple).
    let responseTypes: Set<String>
    let responseMode: ResponseMode
    let scopes: [String]
    let state: String?
    let nonce: String?
    let challenge: PKCEChallenge?
    /// Google: `access_type=offline`.
    let offlineAccess: Bool
    /// Google: `prompt` contains `consent`.
    let forceConsent: Bool
    /// Microsoft: the authority path segment (`common`, `organizations`, `consumers` or a tenant GUID) the
    /// request went to; the code must be redeemed at the same authority.
    let authority: String?
    /// FAPI mode: the `dpop_jkt` of the pushed request (RFC 9449 §10), which the code exchange's proof key must match.
    var dpopJKT: String?

    init(
        provider: SandboxProvider, clientID: String, redirectURI: String, responseTypes: Set<String> = ["code"],
        responseMode: ResponseMode = .query, scopes: [String], state: String?, nonce: String?,
        challenge: PKCEChallenge?, offlineAccess: Bool = false, forceConsent: Bool = false, authority: String? = nil
    ) {
        self.authority = authority
        self.provider = provider
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.responseTypes = responseTypes
        self.responseMode = responseMode
        self.scopes = scopes
        self.state = state
        self.nonce = nonce
        self.challenge = challenge
        self.offlineAccess = offlineAccess
        self.forceConsent = forceConsent
    }

    func hasScope(_ scope: String) -> Bool { scopes.contains(scope) }
}

/// Why an authorization request was refused before the consent page. Shown to the user on an error page,
/// never redirected to an unvalidated redirect URI.
struct AuthorizationRefusal: Error, Sendable {
    let error: String
    let description: String
    let status: Int

    init(_ error: String, _ description: String, status: Int = 400) {
        self.error = error
        self.description = description
        self.status = status
    }
}
