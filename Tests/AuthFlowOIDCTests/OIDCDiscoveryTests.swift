import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowOIDC
import Testing

@Suite struct OIDCDiscoveryTests {
    static let client = CurlHTTPClient(configuration: .init(defaultTimeout: 30, connectTimeout: 15))

    @Test func fetchesTheDocumentOncePerIssuer() async throws {
        try await TestIssuer.with { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let first = try await discovery.metadata(for: issuer.baseURL)
            let second = try await discovery.metadata(for: issuer.baseURL)
            #expect(first == second)
            #expect(first.tokenEndpoint == issuer.baseURL + "/token")
            #expect(await discovery.fetchCount == 1)
            #expect(issuer.requests == 1)
            await discovery.forget(issuer: issuer.baseURL)
            _ = try await discovery.metadata(for: issuer.baseURL)
            #expect(issuer.requests == 2)
        }
    }

    @Test func dropsATerminatingSlashBeforeTheWellKnownPathButComparesTheIssuerExactly() async throws {
        let document: @Sendable (String) -> JSONValue = { base in
            TestIssuer.document(base, ["issuer": .string(base + "/")])
        }
        try await TestIssuer.with(document: document) { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            let metadata = try await discovery.metadata(for: issuer.baseURL + "/")
            #expect(metadata.issuer == issuer.baseURL + "/")
            await #expect(throws: OIDCDiscoveryError.self) { try await discovery.metadata(for: issuer.baseURL) }
        }
    }

    @Test func refusesADocumentNamingAnotherIssuer() async throws {
        let document: @Sendable (String) -> JSONValue = { base in
            TestIssuer.document(base, ["issuer": "https://attacker.example"])
        }
        try await TestIssuer.with(document: document) { issuer in
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            do throws(OIDCDiscoveryError) {
                _ = try await discovery.metadata(for: issuer.baseURL)
                Issue.record("expected issuer_mismatch")
            } catch {
                #expect(error.code == .issuerMismatch)
                #expect(error.issuer == issuer.baseURL)
            }
        }
    }

    @Test func doesNotCacheAFailure() async throws {
        try await TestIssuer.with { issuer in
            issuer.serve(status: 503, rawBody: Array("{}".utf8))
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            do throws(OIDCDiscoveryError) {
                _ = try await discovery.metadata(for: issuer.baseURL)
                Issue.record("expected discovery_unexpected_status")
            } catch {
                #expect(error.code == .unexpectedStatus)
            }
            issuer.serve(status: 200, rawBody: nil)
            let metadata = try await discovery.metadata(for: issuer.baseURL)
            #expect(metadata.issuer == issuer.baseURL)
            #expect(await discovery.fetchCount == 2)
        }
    }

    @Test func refusesABodyThatIsNotJSON() async throws {
        try await TestIssuer.with { issuer in
            issuer.serve(status: 200, rawBody: Array("<html>hello</html>".utf8))
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            do throws(OIDCDiscoveryError) {
                _ = try await discovery.metadata(for: issuer.baseURL)
                Issue.record("expected invalid_discovery_document")
            } catch {
                #expect(error.code == .invalidDocument)
            }
        }
    }

    @Test func refusesAnOversizedDocument() async throws {
        try await TestIssuer.with { issuer in
            issuer.serve(
                status: 200, rawBody: Array(repeating: UInt8(ascii: " "), count: OIDCDiscovery.maximumDocumentBytes + 1)
            )
            let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
            do throws(OIDCDiscoveryError) {
                _ = try await discovery.metadata(for: issuer.baseURL)
                Issue.record("expected invalid_discovery_document")
            } catch {
                #expect(error.code == .invalidDocument)
            }
        }
    }

    @Test func refusesAnIssuerThatIsNotHTTPSWithoutFetching() async throws {
        let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
        for issuer in ["http://login.example.com", "https://login.example.com?tenant=1", "login.example.com"] {
            do throws(OIDCDiscoveryError) {
                _ = try await discovery.metadata(for: issuer)
                Issue.record("expected invalid_issuer for \(issuer)")
            } catch {
                #expect(error.code == .invalidIssuer)
            }
        }
        #expect(await discovery.fetchCount == 0)
    }

    @Test func reportsAnUnreachableIssuer() async throws {
        // Port 1 on loopback: a privileged port nothing here listens on, so the connection is refused.
        // (A port freed by another listener could be handed to a parallel test's server meanwhile.)
        let base = "http://127.0.0.1:1"
        let discovery = OIDCDiscovery(httpClient: Self.client, timeout: 30)
        do {
            _ = try await discovery.metadata(for: base)
            Issue.record("expected discovery_unreachable")
        } catch {
            #expect(error.code == .unreachable)
        }
    }
}
