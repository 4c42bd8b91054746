package import AuthFlowHTTP
import AuthFlowJOSE

/// Fetches and caches OpenID Connect discovery documents, one per issuer.
///
/// Discovery is the only asynchronous part of setting up a `type: oidc` provider, so it is an explicit
/// step that runs before provider resolution (see `ProviderRegistry.resolve(_:discovery:credentials:)`):
/// resolution, and every sign-in after it, stay synchronous and free of discovery I/O. A document is
/// fetched once per issuer and kept for the life of this object; call ``forget(issuer:)`` and resolve
/// again to pick up changed endpoints (rotated signing keys need no rediscovery: the JWKS cache refetches
/// on an unknown `kid`). Failures are not cached.
package actor OIDCDiscovery {
    /// The largest discovery document accepted, in bytes.
    package static let maximumDocumentBytes = 256 * 1024

    nonisolated let httpClient: any HTTPClient
    private let timeout: Double
    private var documents: [String: OIDCProviderMetadata] = [:]
    private var inFlight: [String: Task<OIDCProviderMetadata, any Error>] = [:]

    /// How many discovery documents have been requested over the network.
    package private(set) var fetchCount = 0

    /// Creates a discovery client that fetches through `httpClient`, allowing `timeout` seconds per fetch.
    package init(httpClient: any HTTPClient, timeout: Double = 10) {
        self.httpClient = httpClient
        self.timeout = timeout
    }

    /// The issuer's checked metadata, fetched from `{issuer}/.well-known/openid-configuration` on first use.
    ///
    /// Concurrent callers for the same issuer share one fetch.
    ///
    /// - Throws: ``OIDCDiscoveryError``: `invalid_issuer` (not https, except loopback), `discovery_unreachable`,
    ///   `discovery_unexpected_status`, or any error of ``OIDCProviderMetadata/init(json:expectedIssuer:)``.
    package func metadata(for issuer: String) async throws(OIDCDiscoveryError) -> OIDCProviderMetadata {
        if let document = documents[issuer] { return document }
        if let problem = DiscoveryURL.problem(with: issuer, allowsQuery: false) {
            throw OIDCDiscoveryError(.invalidIssuer, "issuer: \(problem)", issuer: issuer, field: "issuer")
        }
        let task: Task<OIDCProviderMetadata, any Error>
        if let running = inFlight[issuer] {
            task = running
        } else {
            let client = httpClient
            let timeout = timeout
            task = Task { try await Self.fetch(issuer: issuer, httpClient: client, timeout: timeout) }
            inFlight[issuer] = task
            fetchCount += 1
        }
        do {
            let document = try await task.value
            documents[issuer] = document
            inFlight[issuer] = nil
            return document
        } catch let error as OIDCDiscoveryError {
            inFlight[issuer] = nil
            throw error
        } catch {
            inFlight[issuer] = nil
            throw OIDCDiscoveryError(
                .unreachable, "expected the discovery document, found the fetch failed", issuer: issuer)
        }
    }

    /// Drops the cached document of `issuer`, so the next ``metadata(for:)`` fetches it again.
    package func forget(issuer: String) {
        documents[issuer] = nil
    }

    static func fetch(issuer: String, httpClient: any HTTPClient, timeout: Double) async throws
        -> OIDCProviderMetadata
    {
        var request = HTTPClientRequest(method: "GET", url: DiscoveryURL.documentURL(for: issuer))
        request.headers["Accept"] = "application/json"
        request.timeout = timeout
        let response: HTTPClientResponse
        do {
            response = try await httpClient.send(request)
        } catch {
            let reason = (error as? HTTPClientError).map { "\($0.code)" } ?? "a transport failure"
            throw OIDCDiscoveryError(
                .unreachable, "expected a response from the discovery endpoint, found \(reason)", issuer: issuer)
        }
        guard response.status == 200 else {
            throw OIDCDiscoveryError(
                .unexpectedStatus, "expected HTTP 200 from the discovery endpoint, found HTTP \(response.status)",
                issuer: issuer)
        }
        guard response.body.count <= maximumDocumentBytes else {
            throw OIDCDiscoveryError(
                .invalidDocument,
                "expected a discovery document of at most \(maximumDocumentBytes) bytes, found \(response.body.count)",
                issuer: issuer)
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(response.body)
        } catch {
            throw OIDCDiscoveryError(
                .invalidDocument,
                "expected the discovery document to be JSON, found a body that is not (\(error.code))",
                issuer: issuer)
        }
        return try OIDCProviderMetadata(json: json, expectedIssuer: issuer)
    }
}
