/// A store that names the kind of server behind it, so `GET /healthz` can tell an operator which one to
/// look at when the store does not answer.
public protocol StoreBackendNaming: Sendable {
    /// `"memory"`, `"sqlite"`, `"postgres"` or `"redis"` for the stores AuthFlow ships.
    var backendName: String { get }
}
