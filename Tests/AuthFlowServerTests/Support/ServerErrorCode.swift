@testable import AuthFlowServer

/// The code of the `ServerError` that `body` throws, `nil` when it throws none, or the description of another
/// error.
func serverErrorCode(_ body: () async throws -> Void) async -> String? {
    do {
        try await body()
        return nil
    } catch let error as ServerError {
        return error.code.rawValue
    } catch {
        return "\(error)"
    }
}
