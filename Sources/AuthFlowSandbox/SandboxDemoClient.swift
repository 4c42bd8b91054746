package import AuthFlowJOSE

/// A client the sandbox registered for itself with generated credentials (see
/// ``SandboxIdentityProvider/registerDemoClients(redirectURIs:credentialsDirectory:inFragment:)``), and where those
/// credentials were written.
package struct SandboxDemoClient: Sendable {
    /// The provider the client is registered with.
    package let provider: SandboxProvider
    /// The client id.
    package let clientID: String
    /// The generated static secret (Google, Facebook, X); handle as a secret, print only ``maskedSecret``.
    package let clientSecret: String?
    /// Apple: the generated team id.
    package let teamID: String?
    /// Apple: the key id of the generated client-secret signing key.
    package let keyID: String?
    /// Apple: the generated private P-256 key that signs client secrets.
    package let privateKey: JWK?
    /// The file holding the secret or the `.p8` key, when credentials were written.
    package let credentialFile: String?
    /// The redirect URIs registered for the client.
    package let redirectURIs: [String]

    /// The secret shortened for display: its first four characters and an ellipsis; `nil` without a secret.
    package var maskedSecret: String? {
        clientSecret.map { String($0.prefix(4)) + "…" }
    }
}
