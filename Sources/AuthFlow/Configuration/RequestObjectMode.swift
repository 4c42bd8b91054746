/// A provider's `request_object:` key: whether the authorization request travels as a signed request object
/// (RFC 9101, JWT-Secured Authorization Request), signed with the `private_key_jwt` key.
package enum RequestObjectMode: String, Sendable, Hashable, CaseIterable {
    /// Sign when the provider demands it (its discovery document's `require_signed_request_object`); the
    /// default.
    case auto
    /// Never sign; a provider that demands signed request objects makes it a configuration error.
    case none
    /// Always sign.
    case signed
}
