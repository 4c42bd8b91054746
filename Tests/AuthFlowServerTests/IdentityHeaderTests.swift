import AuthFlow
import AuthFlowHTTP
import Foundation
import Testing

@testable import AuthFlowServer

/// What `GET /auth/check` may put in `X-Auth-User`, `X-Auth-Email`, `X-Auth-Provider`, `X-Auth-Name` and
/// `X-Auth-Groups`: never a C0 or C1 control, DEL, a line or paragraph separator or a bidirectional control,
/// from the stores (the uncached path) and from the session cache (`handleAtOnce`) alike.
@Suite("Identity headers: no control, separator or bidi character on either check path")
struct IdentityHeaderTests {
    /// One character of each forbidden kind.
    static let forbidden: [(kind: String, character: String)] = [
        ("C0 NUL", "\u{00}"), ("C0 CR", "\r"), ("C0 LF", "\n"), ("C0 TAB", "\t"), ("C0 ESC", "\u{1B}"),
        ("C0 BEL", "\u{07}"), ("DEL", "\u{7F}"), ("C1 NEL", "\u{85}"), ("C1 CSI", "\u{9B}"),
        ("line separator", "\u{2028}"), ("paragraph separator", "\u{2029}"), ("bidi RLO", "\u{202E}"),
        ("bidi RLI", "\u{2067}"), ("bidi RLM", "\u{200F}"), ("bidi ALM", "\u{061C}"),
    ]

    enum Header: String, CaseIterable, Sendable {
        case user = "X-Auth-User"
        case email = "X-Auth-Email"
        case provider = "X-Auth-Provider"
        case name = "X-Auth-Name"
        case groups = "X-Auth-Groups"
    }

    /// Whether `text` holds a forbidden character.
    static func hasForbidden(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                return true
            default: return false
            }
        }
    }

    /// A user, identity and cookie session as a provider (or a shared store) left them, with `header`'s value
    /// carrying `character`; returns the `/auth/check` request of that session.
    static func forge(
        _ header: Header, with character: String, number: Int, in app: TestDeployment
    ) async throws -> HTTPServerRequest {
        func value(_ plain: String, forging: Header) -> String {
            header == forging ? String(plain.prefix(2)) + character + String(plain.dropFirst(2)) : plain
        }
        let user = UserID(rawValue: value("u-forged-\(number)", forging: .user))
        let provider = value("google", forging: .provider)
        let subject = "s-\(number)"
        _ = try await app.stores.accounts.createUser(
            user, identity: IdentityKey(provider: provider, subject: subject),
            profile: IdentityProfile(
                email: value("eve\(number)@example.com", forging: .email), emailVerified: true,
                name: value("Eve Example", forging: .name)))
        let now = app.clock.now()
        let id = "forged-session-\(number)"
        try await app.stores.sessions.createSession(
            id: id,
            record: SessionRecord(
                userID: user, provider: provider, subject: subject, createdAt: now,
                expiresAt: now.addingTimeInterval(3600), groups: [value("admins", forging: .groups), "ops"]))
        return HTTPServerRequest(
            method: "GET", path: "/auth/check", headers: ["Cookie": "\(app.sessionCookie)=\(id)"],
            remoteAddress: "127.0.0.1")
    }

    /// What the check answers when `header`'s stored value holds a forbidden character: the identity is still
    /// named (the user and provider whole, or no 202 at all), the email and groups whole or not at all, the
    /// name cleaned.
    static func expectAnswer(_ response: HTTPServerResponse, _ header: Header, kind: String, path: String) {
        let context = Comment(rawValue: "\(header.rawValue), \(kind), \(path)")
        for field in response.headers {
            #expect(!hasForbidden(field.value), "\(field.name) carried it: \(context)")
        }
        switch header {
        case .user, .provider:
            #expect(response.status == 500, context)
            #expect(response.headers[header.rawValue] == nil, context)
        case .email:
            #expect(response.status == 202, context)
            #expect(response.headers["X-Auth-Email"] == nil, context)
        case .name:
            #expect(response.status == 202, context)
            #expect(response.headers["X-Auth-Name"] == "Eve Example", context)
        case .groups:
            #expect(response.status == 202, context)
            #expect(response.headers["X-Auth-Groups"] == "ops", context)
        }
    }

    @Test(arguments: Header.allCases)
    func aForbiddenCharacterNeverReachesTheHeaderOnEitherPath(_ header: Header) async throws {
        var settings = TestDeployment.Settings()
        // Cached checks outlive any pause of a busy test run between caching and `handleAtOnce`.
        settings.sessionCacheLifetime = 600
        try await TestDeployment.with(settings) { app in
            for (number, forbidden) in Self.forbidden.enumerated() {
                let request = try await Self.forge(header, with: forbidden.character, number: number, in: app)
                // The first check reads the stores (and fills the session cache when it answers 202).
                let uncached = await app.server.handle(request)
                Self.expectAnswer(uncached, header, kind: forbidden.kind, path: "uncached")
                // The second is answered from the session cache at once, or left to `handle` when it cannot be.
                let cached = app.server.handleAtOnce(request)
                if header == .user || header == .provider {
                    #expect(cached == nil, "\(header.rawValue), \(forbidden.kind), cached")
                } else {
                    let answer = try #require(cached, "\(header.rawValue), \(forbidden.kind): not answered at once")
                    Self.expectAnswer(answer, header, kind: forbidden.kind, path: "cached")
                }
            }
        }
    }

    @Test func plainValuesAreSentWholeOnBothPaths() async throws {
        var settings = TestDeployment.Settings()
        settings.sessionCacheLifetime = 600
        try await TestDeployment.with(settings) { app in
            let request = try await Self.forge(.name, with: "", number: 0, in: app)
            let uncached = await app.server.handle(request)
            let cached = try #require(app.server.handleAtOnce(request))
            for response in [uncached, cached] {
                #expect(response.status == 202)
                #expect(response.headers["X-Auth-User"] == "u-forged-0")
                #expect(response.headers["X-Auth-Provider"] == "google")
                #expect(response.headers["X-Auth-Email"] == "eve0@example.com")
                #expect(response.headers["X-Auth-Name"] == "Eve Example")
                #expect(response.headers["X-Auth-Groups"] == "admins,ops")
            }
        }
    }

    /// The cached answer is prepared once per cache entry: each request gets that answer field for field, in the
    /// same order as the uncached one, with its own request id added once and nothing left from the last request.
    @Test func theCachedAnswerIsTheUncachedOneFieldForField() async throws {
        var settings = TestDeployment.Settings()
        settings.sessionCacheLifetime = 600
        try await TestDeployment.with(settings) { app in
            let request = try await Self.forge(.name, with: "", number: 0, in: app)
            let uncached = await app.server.handle(request)
            let fields = { (response: HTTPServerResponse) in
                response.headers.map { [$0.name, $0.name == "X-Request-Id" ? "" : $0.value] }
            }
            var ids: Set<String> = [try #require(uncached.headers["X-Request-Id"])]
            for _ in 0..<3 {
                let cached = try #require(app.server.handleAtOnce(request))
                #expect(cached.status == uncached.status)
                #expect(cached.body == uncached.body)
                #expect(fields(cached) == fields(uncached))
                #expect(cached.headers.values("X-Request-Id").count == 1)
                ids.insert(try #require(cached.headers["X-Request-Id"]))
            }
            #expect(ids.count == 4)
        }
    }
}
