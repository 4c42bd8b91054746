public import AuthFlowHTTP
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that runs an async handler for each request.
///
/// Handlers run as Swift tasks. A handler starts on the polling thread and, when it answers
/// without waiting (a cached session, a redirect), is answered right there, with no thread
/// switch. A handler that waits (a provider, a store, a timer) goes on on the handler threads
/// while its connection is suspended, so it never holds one of the server's polling threads.
/// Handlers should therefore not block their thread (use `await`, not blocking calls). Bodies
/// larger than `Configuration.maxBodyBytes` get 413 without reaching the handler. The server
/// logs nothing, so request bodies and headers (which carry codes, tokens and cookies) never
/// leave the handler.
public final class HTTPServer: Sendable {
    private struct State {
        var daemon: MicroHTTPDDaemon?
        var port = 0
    }

    /// The configuration the server was created with.
    package let configuration: Configuration
    private let handler: HTTPHandler
    private let immediate: HTTPImmediateHandler?
    private let routePolicy: HTTPRoutePolicyProvider?
    private let state = Mutex(State())
    /// The threads a handler goes on on once it waits; the server's own unless they were passed in.
    package let blockingThreads: BlockingThreads

    /// A server that will pass every request to `handler`. A handler that waits goes on on a pool of threads
    /// the server owns, shut down when the server is released.
    public convenience init(configuration: Configuration = .init(), handler: @escaping HTTPHandler) {
        self.init(
            configuration: configuration, immediate: nil, routePolicy: nil, blockingThreads: nil, handler: handler)
    }

    /// A server that will pass every request to `handler`, or first to `immediate`, which may answer it at
    /// once on the polling thread (no task is started for a request it answers). `routePolicy`, when given,
    /// sets each request's body limit and where its handler starts, from its method and path. A handler that
    /// waits goes on on `blockingThreads`; without them the server owns a pool of its own, shut down when the
    /// server is released (pass one pool to the server and its stores so that their blocking operations run
    /// right on the handler's thread).
    package init(
        configuration: Configuration = .init(), immediate: HTTPImmediateHandler? = nil,
        routePolicy: HTTPRoutePolicyProvider? = nil, blockingThreads: BlockingThreads? = nil,
        handler: @escaping HTTPHandler
    ) {
        self.configuration = configuration
        self.immediate = immediate
        self.routePolicy = routePolicy
        self.blockingThreads = blockingThreads ?? BlockingThreads(name: "authflow-http-handler")
        self.handler = handler
    }

    deinit {
        state.withLock { $0.daemon }?.stopNow()
    }

    /// Starts listening and returns the bound port. A stopped server may be started again.
    ///
    /// - Throws: `HTTPServerError` `.alreadyRunning`, `.invalidConfiguration` (host not a literal
    ///   IP address, port or limits out of range) or `.startFailed` (e.g. the port is in use).
    @discardableResult
    public func start() throws(HTTPServerError) -> Int {
        try state.withLock { state throws(HTTPServerError) -> Int in
            guard state.daemon == nil else {
                throw HTTPServerError(code: .alreadyRunning, message: "expected a stopped server, found it running")
            }
            let daemon = try MicroHTTPDDaemon(
                configuration: configuration, immediate: immediate, routePolicy: routePolicy,
                executor: blockingThreads.executor, handler: handler)
            state.daemon = daemon
            state.port = daemon.port
            return daemon.port
        }
    }

    /// The bound port of the running (or last running) server; 0 before the first start (``start()`` returns it).
    package var port: Int { state.withLock { $0.port } }

    /// Body bytes the running server holds for requests not completed yet (0 when stopped).
    var bufferedBodyBytes: Int { state.withLock { $0.daemon }?.bufferedBodyBytes ?? 0 }

    /// Connections the running server has open (0 when stopped).
    var openConnections: Int { state.withLock { $0.daemon }?.openConnections ?? 0 }

    /// Request body bytes the running server has received, kept or discarded (0 when stopped); for tests.
    var receivedBodyBytes: Int { state.withLock { $0.daemon }?.receivedBodyBytes ?? 0 }

    /// How many times the running server suspended a connection because its handler waits (0 when stopped):
    /// a handler resumed after that goes on on a handler thread, never on the polling thread; for tests.
    var suspendedConnections: Int { state.withLock { $0.daemon }?.suspendedConnections ?? 0 }

    /// Whether the server is running.
    package var isRunning: Bool { state.withLock { $0.daemon != nil } }

    /// Stops gracefully: stops accepting connections, waits up to
    /// `Configuration.shutdownGracePeriod` for requests in progress to be answered, then closes
    /// every connection (handlers still running by then get 503) and frees the port. Does
    /// nothing when the server is not running.
    public func stop() async {
        guard
            let daemon = state.withLock({ state -> MicroHTTPDDaemon? in
                defer { state.daemon = nil }
                return state.daemon
            })
        else { return }
        await daemon.stop(gracePeriod: configuration.shutdownGracePeriod)
    }
}
