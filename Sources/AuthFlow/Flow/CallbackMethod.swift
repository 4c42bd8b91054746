/// The HTTP method of the provider's redirect back to the callback URL.
public enum CallbackMethod: String, Sendable, Hashable {
    /// Parameters in the query string (the default `response_mode=query`).
    case get = "GET"
    /// Parameters in an `application/x-www-form-urlencoded` body (`response_mode=form_post`).
    case post = "POST"
}
