/// A `providers.yaml` key a plugin can require (e.g. Apple's `team_id`), checked during resolution.
package struct ProviderSettingKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The YAML key, e.g. `"team_id"`.
    package let rawValue: String

    /// Wraps a YAML key name.
    package init(rawValue: String) { self.rawValue = rawValue }

    /// `client_id`: the application's identifier at the provider.
    package static let clientID = ProviderSettingKey(rawValue: "client_id")
    /// `client_secret` (or `client_secret_file`): the static client secret.
    package static let clientSecret = ProviderSettingKey(rawValue: "client_secret")
    /// `team_id`: Apple Developer Team ID (issuer of the ES256 client secret).
    package static let teamID = ProviderSettingKey(rawValue: "team_id")
    /// `key_id`: the ID of the Sign in with Apple private key.
    package static let keyID = ProviderSettingKey(rawValue: "key_id")
    /// `private_key_file`: the PKCS#8 PEM private key that signs the client-secret JWT.
    package static let privateKey = ProviderSettingKey(rawValue: "private_key_file")
    /// `issuer`: the expected `iss` of id_tokens.
    package static let issuer = ProviderSettingKey(rawValue: "issuer")

    /// The YAML key.
    package var description: String { rawValue }

    /// Whether `settings` provides a value for this key. Keys unknown to ``ProviderSettings`` count as absent.
    package func isPresent(in settings: ProviderSettings) -> Bool {
        switch self {
        case .clientID: settings.clientID.map { !$0.isEmpty } ?? false
        case .clientSecret: settings.clientSecret.map { !$0.value.isEmpty } ?? false
        case .teamID: settings.teamID.map { !$0.isEmpty } ?? false
        case .keyID: settings.keyID.map { !$0.isEmpty } ?? false
        case .privateKey: settings.privateKey.map { !$0.value.isEmpty } ?? false
        case .issuer: settings.issuer.map { !$0.isEmpty } ?? false
        default: false
        }
    }
}
