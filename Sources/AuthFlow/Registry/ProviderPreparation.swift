package import AuthFlowHTTP
import Synchronization

/// What ``ProviderPreparing/prepared(for:context:)`` may use while providers are resolved: the HTTP client and
/// values shared by every provider of one ``ProviderRegistry/resolve(_:httpClient:credentials:)`` call (e.g. a
/// cache of discovery documents, so each issuer is fetched once).
package final class ProviderPreparation: Sendable {
    /// The client for any request a plugin makes before resolution.
    package let httpClient: any HTTPClient
    private let values: Mutex<[String: any Sendable]>

    /// Creates a context; `shared` seeds values (e.g. a caller's own discovery cache under its plugin's key).
    package init(httpClient: any HTTPClient, shared: [String: any Sendable] = [:]) {
        self.httpClient = httpClient
        self.values = Mutex(shared)
    }

    /// The value stored under `key`, created by `make` on first use. A stored value of another type is
    /// replaced.
    package func shared<Value: Sendable>(_ key: String, make: () -> Value) -> Value {
        values.withLock { values in
            if let value = values[key] as? Value { return value }
            let value = make()
            values[key] = value
            return value
        }
    }
}
