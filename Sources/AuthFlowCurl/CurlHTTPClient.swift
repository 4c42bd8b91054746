public import AuthFlowHTTP
internal import CCurl

/// The production `HTTPClient`, on libcurl.
///
/// One dedicated thread drives a curl multi handle, so connections (and TLS sessions) to the
/// same host are reused across requests. A request sent from a thread that may block (a server
/// handler that waited once, or work under `BlockingThreads.run`) runs right on that thread
/// instead, on a kept handle with its own open connections, as long as fewer than four such
/// requests run in the process: that saves the two thread hand-overs to the loop's thread and
/// back, and the executor starts other handler threads while these are blocked. Each request has a total
/// timeout and a connect
/// timeout, TLS 1.2 or newer with certificate and host verification, no automatic redirects,
/// only `http`/`https`, no proxy unless one is configured, and a response size cap.
public final class CurlHTTPClient: HTTPClient {
    private let configuration: Configuration
    private let loop: CurlMultiLoop
    let direct: CurlDirectHandles

    /// A client with its own connection pool and transfer thread.
    public convenience init(configuration: Configuration = .init()) {
        self.init(configuration: configuration, directSlots: .shared)
    }

    /// A client whose transfers on handler threads take `directSlots` (tests give a client slots of its own).
    init(configuration: Configuration, directSlots: CurlDirectSlots) {
        CurlGlobal.initializeOnce()
        self.configuration = configuration
        self.loop = CurlMultiLoop(maxConnectionsPerHost: configuration.maxConnectionsPerHost)
        self.direct = CurlDirectHandles(slots: directSlots)
    }

    deinit {
        loop.shutdown()
    }

    /// Sends `request`; see `HTTPClient.send`. Cancelling the calling task aborts the transfer.
    ///
    /// - Throws: `HTTPClientError` (`invalidURL`, `unsupportedScheme`, `invalidRequest`,
    ///   `timeout`, `connectionFailed`, `tlsFailure`, `responseTooLarge`, `cancelled`,
    ///   `clientShutDown`, `transferFailed`).
    public func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        // The calling thread's own pool, if it has one, counts it as blocked; the client owns no threads of it.
        if let threads = HandlerExecutor.current, let handle = direct.borrow() {
            defer { direct.giveBack(handle) }
            let transfer = try CurlTransfer(request: request, configuration: configuration, borrowing: handle.easy)
            // No suspension inside: the transfer runs on this thread, which blocks until it ends.
            return try await withTaskCancellationHandler {
                try threads.blocking { transfer.perform() }.get()
            } onCancel: {
                transfer.markCancelled()
            }
        }
        let transfer = try CurlTransfer(request: request, configuration: configuration)
        let loop = self.loop
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<HTTPClientResponse, any Error>) in
                transfer.continuation = continuation
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
    }
}
