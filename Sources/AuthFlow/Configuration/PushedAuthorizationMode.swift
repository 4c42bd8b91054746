/// A provider's `par:` key: whether a sign-in pushes its authorization request to the provider first
/// (RFC 9126, Pushed Authorization Requests) and redirects the browser with only `client_id` and the
/// `request_uri` the provider answered.
package enum PushedAuthorizationMode: String, Sendable, Hashable, CaseIterable {
    /// Push when the provider has a pushed authorization request endpoint (its discovery document's
    /// `pushed_authorization_request_endpoint`, or `endpoints.pushed_authorization_request`); the default.
    case auto
    /// Always push; a provider without the endpoint is a configuration error.
    case required
    /// Never push; a provider that sets `require_pushed_authorization_requests` is a configuration error.
    case off
}
