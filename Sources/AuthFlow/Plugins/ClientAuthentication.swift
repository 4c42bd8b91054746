/// How the client authenticates itself at the provider's token endpoint.
///
/// The raw values are the names shown by `authflow matrix` (`client_auth`).
public enum ClientAuthentication: String, Sendable, Hashable, CaseIterable {
    /// `client_id` and `client_secret` in the form-encoded POST body (RFC 6749 §2.3.1).
    case clientSecretPost = "client_secret_post"
    /// HTTP Basic `Authorization` header with the form-urlencoded `client_id:client_secret` (RFC 6749 §2.3.1).
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` in the query string of a GET token request (Facebook's Graph endpoint).
    case clientSecretGet = "client_secret_get"
    /// A freshly minted ES256 JWT sent as `client_secret` in the POST body (Sign in with Apple).
    case es256ClientSecretJWT = "es256_client_secret_jwt"
    /// A fresh JWT assertion signed with the client's own private key, sent as `client_assertion` with
    /// `client_id` in the POST body (RFC 7523 §2.2, OpenID Connect Core §9 `private_key_jwt`).
    case privateKeyJWT = "private_key_jwt"

    /// The methods `providers.NAME.client_auth` may name, in the order they are preferred when the issuer's
    /// discovery document lists several and the plugin's default is not among them.
    package static let configurable: [ClientAuthentication] = [.clientSecretBasic, .clientSecretPost, .privateKeyJWT]
}
