package import AuthFlowHTTP

extension BlockingThreads {
    /// Runs a store backend's blocking `operation` (`body`) on a thread that may block (``BlockingThreads/run(_:)``);
    /// a pool already shut down fails it with `backendFailure` instead of running it.
    package func storeOperation<T>(
        _ operation: String, _ body: () -> Result<T, StoreError>
    ) async throws(StoreError) -> T {
        let result: Result<T, StoreError>
        do {
            result = try await run(body)
        } catch {
            throw StoreError(
                .backendFailure, "expected the store's blocking threads running, found them shut down",
                operation: operation)
        }
        return try result.get()
    }
}
