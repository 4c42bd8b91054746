/// A store that names the kind of server behind it, so `GET /healthz` can tell an operator which one to
/// look at when the store does not answer.
package protocol StoreBackendNaming: Sendable {
    /// `"memory"`, `"sqlite"`, `"postgres"` or `"redis"` for the stores AuthFlow ships.
    var backendName: String { get }
}
