import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@Suite("Sandbox robustness")
struct SandboxRobustnessTests {
    typealias H = SandboxHarness

    @Test(arguments: Transport.available)
    func aCodeRedeemedConcurrentlySucceedsExactlyOnce(transport: Transport) async throws {
        let harness = try H(transport: transport)
        let (code, _) = try await harness.code(.google)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 { group.addTask { try await harness.exchange(.google, code: code).status } }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 == 400 }.count == 15)
    }

    @Test func hostileRequestsGetTypedRefusalsNotCrashes() async throws {
        let harness = try H()
        let paths = [
            "/apple/auth/authorize", "/apple/consent", "/apple/auth/token", "/apple/auth/revoke", "/google/token",
            "/google/o/oauth2/v2/auth", "/google/v1/userinfo", "/google/revoke", "/facebook/v19.0/oauth/access_token",
            "/facebook/me", "/facebook/v999999.0/me", "/x/2/oauth2/token", "/x/2/users/me", "/x/i/oauth2/authorize",
            "/_sandbox/apple/notify", "/facebook/consent", "//", "/apple/", "/x",
        ]
        let garbage: [[UInt8]] = [
            [], Array("%%%&&&===".utf8), [0xFF, 0xFE, 0x00, 0x01], Array(repeating: UInt8(ascii: "a"), count: 70_000),
            Array("client_secret=eyJ.eyJ.sig&client_id=com.example.web&grant_type=authorization_code&code=x".utf8),
            Array("client_secret=\(String(repeating: "A", count: 5000))&client_id=com.example.web".utf8),
        ]
        let headerSets: [HTTPHeaders] = [
            ["Content-Type": "application/x-www-form-urlencoded"], ["Content-Type": "application/json"],
            ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic %%%"],
            ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer"],
            [
                "Content-Type": "application/x-www-form-urlencoded",
                "Authorization": "Basic " + Data("nocolon".utf8).base64EncodedString(),
            ],
        ]
        for path in paths {
            for method in ["GET", "POST", "PUT"] {
                for body in garbage {
                    for headers in headerSets {
                        let query: [(String, String)] = [
                            ("client_id", "\u{0}"), ("state", String(repeating: "s", count: 5000)),
                        ]
                        let reply = try await harness.send(method, path, query: query, headers: headers, body: body)
                        #expect((200..<600).contains(reply.status))
                        #expect(reply.status != 500, "\(method) \(path) answered 500")
                    }
                }
            }
        }
        // Nothing was issued by any of it, and the sandbox still serves a well-formed sign-in afterwards.
        #expect(harness.sandbox.revocations(for: .apple).isEmpty)
        let (code, _) = try await harness.code(.google)
        #expect(try await harness.exchange(.google, code: code).status == 200)
    }

    @Test func clientSecretJWTsThatAreNotJWTsAreRefused() async throws {
        let harness = try H()
        for secret in ["a.b.c", "..", "eyJhbGciOiJFUzI1NiJ9..", String(repeating: "x.", count: 2000), "e30.e30.e30"] {
            let reply = try await harness.post(
                H.tokenPath(.apple),
                form: [
                    ("grant_type", "refresh_token"), ("refresh_token", "r"), ("client_id", H.appleClientID),
                    ("client_secret", secret),
                ])
            #expect(reply.status == 400)
            #expect(reply.oauthError == "invalid_client")
        }
    }
}
