import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation

/// Fixed test data shared by every end-to-end test: client credentials, keys parsed from fixtures (no test
/// generates an RSA key), and one libcurl client (one transfer thread) for every request a test makes.
enum E2E {
    static let appleClientID = "com.example.web"
    static let teamID = "TEAM123456"
    static let appleKeyID = "KEY1234567"
    static let googleClientID = "123-e2e.apps.googleusercontent.com"
    static let googleSecret = "google-secret-for-e2e"
    static let facebookClientID = "1234567890"
    static let facebookSecret = "facebook-secret-for-e2e"
    static let xClientID = "x-client-e2e"
    static let xSecret = "x-secret-for-e2e"

    /// The instant every test's clocks start at.
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    /// Generous: two cores are shared by several builds, so a loopback answer can be slow.
    static let client = CurlHTTPClient(
        configuration: .init(defaultTimeout: 60, connectTimeout: 30, maxConnectionsPerHost: 16))

    /// The sandbox's id_token signing keys (private), so an interposer can re-sign what it tampers with.
    static let signingKeys: Result<[SandboxProvider: JWK], JOSEError> = Result { () throws(JOSEError) in
        [
            .apple: try JWK(pkcs8PEM: FixtureKeys.appleSigning, keyID: "APPLEKEY01"),
            .google: try JWK(pkcs8PEM: FixtureKeys.googleSigning, keyID: "google-key-1"),
            .facebook: try JWK(pkcs8PEM: FixtureKeys.facebookSigning, keyID: "facebook-key-1"),
        ]
    }

    /// An RSA key the sandbox never published, with a kid of its own.
    static let foreignKey: Result<JWK, JOSEError> = Result { () throws(JOSEError) in
        try JWK(pkcs8PEM: FixtureKeys.foreignSigning, keyID: "foreign-key-1")
    }

    /// The Apple client-secret key registered with the sandbox.
    static let appleClientKey: Result<JWK, JOSEError> = Result { () throws(JOSEError) in
        try JWK(pkcs8PEM: FixtureKeys.appleClient, keyID: appleKeyID)
    }

    /// Another P-256 key with the same key id: secrets it signs do not verify with the registered key.
    static let unregisteredAppleKey: Result<JWK, JOSEError> = Result { () throws(JOSEError) in
        try JWK(pkcs8PEM: FixtureKeys.unregisteredAppleClient, keyID: appleKeyID)
    }

    static func signingKey(_ provider: SandboxProvider) throws -> JWK {
        guard let key = try signingKeys.get()[provider] else { throw E2EFailure("no signing key for \(provider)") }
        return key
    }
}

/// A failure of the test machinery itself (not of the code under test).
struct E2EFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs slow synchronous work (such as the sandbox generating a new RSA signing key) on a thread of its own,
/// so the cooperative pool keeps serving the in-process listeners meanwhile.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
