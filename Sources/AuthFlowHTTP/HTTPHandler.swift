/// Handles one request; must not block the calling thread (await instead).
public typealias HTTPHandler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse

/// Answers one request at once, on the server's polling thread, when it can do so without waiting (say, from
/// an in-memory cache): it returns the response, or `nil` to let the ``HTTPHandler`` answer. It must not block
/// or wait; it saves the handler's task (about a tenth of a short request's cost).
package typealias HTTPImmediateHandler = @Sendable (HTTPServerRequest) -> HTTPServerResponse?
