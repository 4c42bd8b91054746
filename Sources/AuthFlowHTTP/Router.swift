/// Handles one request; must not block the calling thread (await instead).
public typealias HTTPHandler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse

/// Dispatches requests by method and path pattern.
///
/// A pattern is a path of `/`-separated segments; a segment `{name}` matches any one non-empty
/// segment and is passed (percent-decoded) in `pathParameters["name"]`, e.g.
/// `/auth/{provider}/login`. Literal segments match the decoded request segment exactly. Routes
/// are tried in the order added. A path no route matches gets 404 `{"error":"not_found",...}`;
/// a path some route matches with another method gets 405 `{"error":"method_not_allowed",...}`
/// with an `Allow` header. `HEAD` falls back to the `GET` route.
public struct Router: Sendable {
    private struct Route: Sendable {
        let method: String
        let segments: [Segment]
        let handler: HTTPHandler
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    private var routes: [Route] = []

    /// An empty router (every request gets 404).
    public init() {}

    /// Adds a route for `method` (case-sensitive, e.g. `GET`) and `pattern` (e.g. `/auth/{provider}/login`).
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping HTTPHandler) {
        let segments = Self.split(pattern).map { text -> Segment in
            if text.count > 2, text.hasPrefix("{"), text.hasSuffix("}") {
                return .parameter(String(text.dropFirst().dropLast()))
            }
            return .literal(text)
        }
        routes.append(Route(method: method, segments: segments, handler: handler))
    }

    /// Runs the handler of the first matching route, or answers 404 / 405.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard request.path.hasPrefix("/") else { return Self.notFound() }
        let segments = Self.split(request.path).map { FormURLEncoding.unescape($0.utf8, plusIsSpace: false) }
        var allowed: [String] = []
        var headFallback: (Route, [String: String])?
        for route in routes {
            guard let parameters = Self.match(route.segments, segments) else { continue }
            if route.method == request.method {
                var routed = request
                routed.pathParameters = parameters
                return await route.handler(routed)
            }
            if request.method == "HEAD", route.method == "GET", headFallback == nil {
                headFallback = (route, parameters)
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if let (route, parameters) = headFallback {
            var routed = request
            routed.pathParameters = parameters
            return await route.handler(routed)
        }
        guard !allowed.isEmpty else { return Self.notFound() }
        var response = HTTPServerResponse.error(
            "method_not_allowed", message: "This path does not accept this method.", status: 405)
        response.headers["Allow"] = allowed.joined(separator: ", ")
        return response
    }

    private static func notFound() -> HTTPServerResponse {
        .error("not_found", message: "No route matches this path.", status: 404)
    }

    /// The segments after the leading `/` (an empty path has one empty segment).
    private static func split(_ path: String) -> [String] {
        var pieces = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if pieces.first == "" { pieces.removeFirst() }
        return pieces
    }

    private static func match(_ pattern: [Segment], _ path: [String]) -> [String: String]? {
        guard pattern.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(pattern, path) {
            switch segment {
            case .literal(let text):
                guard text == value else { return nil }
            case .parameter(let name):
                guard !value.isEmpty else { return nil }
                parameters[name] = value
            }
        }
        return parameters
    }
}
