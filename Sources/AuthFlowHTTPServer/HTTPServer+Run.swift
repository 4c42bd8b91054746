public import AuthFlowHTTP

extension HTTPServer {
    /// The whole life of a server process: catches SIGINT and SIGTERM, starts listening, calls `started` with
    /// the bound port, returns once one of the signals arrives, after stopping gracefully (``stop()``:
    /// requests in progress are answered first).
    ///
    /// - Throws: `HTTPServerError` when the server cannot start (then nothing is listening).
    public func runUntilTerminated(started: (Int) -> Void = { _ in }) async throws(HTTPServerError) {
        let signals = TerminationSignals()
        started(try start())
        await signals.wait()
        await stop()
    }
}
