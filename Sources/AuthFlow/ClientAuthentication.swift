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
}
