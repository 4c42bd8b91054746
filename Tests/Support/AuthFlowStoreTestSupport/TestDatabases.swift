package import AuthFlowRedis
import AuthFlowStores
import Foundation

@testable import AuthFlowPostgres

/// Fresh, empty databases on the test servers, one per harness, so tests never see each other's rows.
package enum TestDatabases {
    package static var postgresURL: String? {
        ProcessInfo.processInfo.environment["AUTHFLOW_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    package static var redisURL: String? {
        ProcessInfo.processInfo.environment["AUTHFLOW_TEST_REDIS_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A client on the server of `AUTHFLOW_TEST_REDIS_URL` with a fresh key prefix, so tests never share keys.
    package static func freshRedisClient() throws -> RedisClient {
        guard let url = redisURL else {
            throw StoreError(
                .backendFailure,
                "expected AUTHFLOW_TEST_REDIS_URL to name a Redis server (scripts/test.sh starts one), found it unset")
        }
        return try RedisClient(endpoint: try RedisEndpoint(url: url), prefix: "authflow-test:\(UUID().uuidString):")
    }

    package static var required: Bool { ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1" }

    /// Creates an empty database on the server of `AUTHFLOW_TEST_POSTGRES_URL` and returns its URL.
    package static func freshPostgresURL() throws -> String {
        guard let url = postgresURL, var components = URLComponents(string: url) else {
            throw StoreError(
                .backendFailure,
                "expected AUTHFLOW_TEST_POSTGRES_URL to name a PostgreSQL server (scripts/test.sh starts one), "
                    + "found it unset")
        }
        // Test-only: the name is generated here from hex digits, never taken from input.
        let name = "authflow_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresConnection(conninfo: url, timeout: 30)
        try admin.run("CREATE DATABASE \(name)", operation: "create test database")
        components.path = "/" + name
        guard let fresh = components.string else {
            throw StoreError(.invalidValue, "expected a URL for the test database, found none")
        }
        return fresh
    }
}
