/// Handles one request; must not block the calling thread (await instead).
public typealias HTTPHandler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse
