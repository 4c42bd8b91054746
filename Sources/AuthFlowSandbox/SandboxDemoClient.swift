public import AuthFlowJOSE

/// A client the sandbox registered for itself with generated credentials (see
/// ``SandboxIdentityProvider/registerDemoClients(redirectURIs:credentialsDirectory:inFragment:)``), and where those
/// credentials were written.
public struct SandboxDemoClient: Sendable {
    /// The provider the client is registered with.
    public let provider: SandboxProvider
    /// The client id.
    public let clientID: String
    /// The generated static secret (Google, Facebook, X); handle as a secret, print only ``maskedSecret``.
    public let clientSecret: String?
    /// Apple: the generated team id.
    public let teamID: String?
    /// Apple: the key id of the generated client-secret signing key.
    public let keyID: String?
    /// Apple: the generated private P-256 key that signs client secrets.
    public let privateKey: JWK?
    /// The file holding the secret or the `.p8` key, when credentials were written.
    public let credentialFile: String?
    /// The redirect URIs registered for the client.
    public let redirectURIs: [String]

    /// The secret shortened for display: its first four characters and an ellipsis; `nil` without a secret.
    public var maskedSecret: String? {
        clientSecret.map { String($0.prefix(4)) + "…" }
    }
}
