import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowServer

/// The audit trail (`server.audit_log`, docs/audit.md): each event kind the server writes, produced through real
/// HTTP against the sandbox with its fields checked; no credential in the trail of a whole sign-in, refresh and
/// logout; the writer's file reopened after rotation and its drops counted.
@Suite("Audit trail: security events as JSON lines", .serialized)
struct AuditTrailTests {
    /// A fresh audit file in a temporary directory, and its trail.
    struct AuditFile {
        let directory: String
        let path: String
        let trail: AuditTrail

        init() throws {
            directory = NSTemporaryDirectory() + "authflow-audit-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            path = directory + "/audit.jsonl"
            trail = try AuditTrail(destination: .file(path))
        }

        /// The events written so far, each a JSON object.
        func events(at file: String? = nil) throws -> [JSONValue] {
            guard let data = FileManager.default.contents(atPath: file ?? path) else { return [] }
            return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
                try JSONValue.parse(Array($0.utf8))
            }
        }

        /// The events once `kind` has been written (waits for the writer, with a generous deadline).
        func waitFor(_ kind: String, count: Int = 1, at file: String? = nil) async throws -> [JSONValue] {
            let found = try await Waiting.value(within: .seconds(30)) { () throws -> [JSONValue]? in
                let events = try events(at: file)
                return events.filter { $0["event"]?.stringValue == kind }.count >= count ? events : nil
            }
            return try #require(found, "expected \(count) \(kind) event(s) in the audit trail")
        }

        func remove() {
            trail.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    static func with(
        _ base: TestDeployment.Settings = TestDeployment.Settings(),
        _ body: (TestDeployment, AuditFile) async throws -> Void
    ) async throws {
        let file = try AuditFile()
        defer { file.remove() }
        var settings = base
        settings.audit = file.trail
        try await TestDeployment.with(settings) { app in try await body(app, file) }
    }

    static func only(_ events: [JSONValue], _ kind: String) -> [JSONValue] {
        events.filter { $0["event"]?.stringValue == kind }
    }

    /// The fields every line has, whatever its kind.
    static func checkCommonFields(_ event: JSONValue) {
        #expect(event["version"] == .integer(1))
        let time = event["time"]?.stringValue ?? ""
        #expect(time.hasSuffix("Z") && time.count == 24, "expected RFC 3339 UTC with milliseconds, found \(time)")
        for key in ["request_id", "client_address", "user_id", "provider", "outcome", "code", "actor"] {
            #expect(event[key] != nil, "expected \(key) in every line")
        }
    }

    static func userID(_ app: TestDeployment, _ browser: TestBrowser) async throws -> String {
        try #require(try await app.session(browser).json?["user_id"]?.stringValue)
    }

    @Test func aFirstSignInWritesAccountCreatedAndSignInSucceeded() async throws {
        try await Self.with { app, file in
            let browser = TestBrowser()
            #expect(try await app.signIn(browser, provider: "google", as: People.alice).status == 302)
            let user = try await Self.userID(app, browser)
            let events = try await file.waitFor("sign_in.succeeded")
            let created = try #require(Self.only(events, "account.created").first)
            let signedIn = try #require(Self.only(events, "sign_in.succeeded").first)
            for event in [created, signedIn] {
                Self.checkCommonFields(event)
                #expect(event["user_id"]?.stringValue == user)
                #expect(event["provider"]?.stringValue == "google")
                #expect(event["outcome"]?.stringValue == "success")
                #expect(event["code"] == .null)
                #expect(event["client_address"]?.stringValue == "127.0.0.1")
                #expect((event["request_id"]?.stringValue ?? "").count >= 16)
                #expect(event["actor"]?.stringValue == "user")
            }
            #expect(signedIn["session_kind"]?.stringValue == "cookie")
            #expect(signedIn["intent"]?.stringValue == "login")
            // Both come from the one callback request.
            #expect(created["request_id"] == signedIn["request_id"])
            // No personal data beyond the ids: the email and name the sandbox sent are not in the trail.
            let text = String(decoding: FileManager.default.contents(atPath: file.path) ?? Data(), as: UTF8.self)
            #expect(!text.contains("alice@example.com"))
            #expect(!text.contains("Alice"))
        }
    }

    @Test func aRefusedCallbackWritesSignInRefusedWithItsCode() async throws {
        try await Self.with { app, file in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "google", as: People.alice)
            guard case .get(let url) = answer else {
                Issue.record("expected a redirect back")
                return
            }
            // The callback with a state of another flow.
            let forged = url.replacingOccurrences(of: "state=", with: "state=x")
            #expect(try await browser.get(forged).status >= 400)
            let refused = try #require(Self.only(try await file.waitFor("sign_in.refused"), "sign_in.refused").first)
            Self.checkCommonFields(refused)
            #expect(refused["outcome"]?.stringValue == "failure")
            #expect(refused["provider"]?.stringValue == "google")
            #expect(refused["user_id"] == .null)
            #expect((refused["code"]?.stringValue ?? "").isEmpty == false)
            #expect(refused["client_address"]?.stringValue == "127.0.0.1")
        }
    }

    @Test func aRefusedPasskeySignInWritesSignInRefusedWithItsCode() async throws {
        var settings = TestDeployment.Settings()
        settings.providers = ["google", "passkey"]
        try await Self.with(settings) { app, file in
            var request = HTTPClientRequest(method: "POST", url: app.appURL + "/auth/passkey/authenticate")
            request.headers["Content-Type"] = "application/json"
            request.headers["Origin"] = app.appURL
            request.body = Array(#"{"ceremony": "forged", "credential": {}}"#.utf8)
            let refused = try await CurlHTTPClient().send(request)
            #expect(refused.status == 400)
            let event = try #require(Self.only(try await file.waitFor("sign_in.refused"), "sign_in.refused").first)
            Self.checkCommonFields(event)
            #expect(event["provider"]?.stringValue == "passkey")
            #expect(event["outcome"]?.stringValue == "failure")
            #expect(event["code"]?.stringValue == errorCode(refused))
            #expect(event["user_id"] == .null)
        }
    }

    @Test func linkingAndUnlinkingAnIdentityAreWritten() async throws {
        try await Self.with { app, file in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let user = try await Self.userID(app, browser)
            try await app.signIn(browser, provider: "x", as: People.carol, intent: "link")
            let linked = try #require(Self.only(try await file.waitFor("identity.linked"), "identity.linked").first)
            Self.checkCommonFields(linked)
            #expect(linked["user_id"]?.stringValue == user)
            #expect(linked["provider"]?.stringValue == "x")
            #expect(linked["method"]?.stringValue == "session")
            #expect(try await browser.post(app.appURL + "/auth/x/disconnect", from: app.appURL).status == 204)
            let unlinked = try #require(
                Self.only(try await file.waitFor("identity.unlinked"), "identity.unlinked").first)
            Self.checkCommonFields(unlinked)
            #expect(unlinked["user_id"]?.stringValue == user)
            #expect(unlinked["provider"]?.stringValue == "x")
            #expect(unlinked["actor"]?.stringValue == "user")
        }
    }

    @Test func signOutSignOutEverywhereAndRevokingASessionAreWrittenWithTheirScope() async throws {
        try await Self.with { app, file in
            let laptop = TestBrowser()
            try await app.signIn(laptop, provider: "google", as: People.alice)
            let user = try await Self.userID(app, laptop)
            let phone = TestBrowser()
            try await app.signIn(phone, provider: "google", as: People.alice)
            let tablet = TestBrowser()
            try await app.signIn(tablet, provider: "google", as: People.alice)
            // One of the user's sessions revoked from the session list.
            let listed = try #require(
                try JSONValue.parse(try await laptop.get(app.routesURL + "/sessions").body)["sessions"]?.arrayValue)
            let other = try #require(listed.first { $0["current"] != .bool(true) }?["id"]?.stringValue)
            let revoke = try await laptop.post(
                app.routesURL + "/sessions/revoke", rawBody: JSONValue.object(["id": .string(other)]).serializedBytes(),
                from: app.appURL, headers: [("Content-Type", "application/json")])
            #expect(revoke.status < 300)
            // A plain sign-out, then sign-out everywhere from another session.
            let remaining = [phone, tablet]
            var signedOut: TestBrowser?
            for browser in remaining where try await app.session(browser).status == 200 {
                signedOut = browser
                break
            }
            #expect(try await try #require(signedOut).post(app.routesURL + "/logout", from: app.appURL).status == 204)
            #expect(
                try await laptop.post(app.routesURL + "/logout", form: [("everywhere", "1")], from: app.appURL).status
                    == 204)
            let events = try await file.waitFor("session.revoked", count: 3)
            let revoked = Self.only(events, "session.revoked")
            for event in revoked {
                Self.checkCommonFields(event)
                #expect(event["user_id"]?.stringValue == user)
                #expect(event["actor"]?.stringValue == "user")
            }
            #expect(revoked.map { $0["scope"]?.stringValue ?? "" } == ["session", "session", "user"])
            #expect(revoked[0]["session_kind"]?.stringValue == "cookie")
            #expect(revoked[2]["sessions"] == .integer(1))
        }
    }

    @Test func deletingTheAccountIsWrittenWithWhatWentWithIt() async throws {
        try await Self.with { app, file in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let user = try await Self.userID(app, browser)
            #expect(try await browser.post(app.appURL + "/auth/account/delete", from: app.appURL).status == 204)
            let deleted = try #require(Self.only(try await file.waitFor("account.deleted"), "account.deleted").first)
            Self.checkCommonFields(deleted)
            #expect(deleted["user_id"]?.stringValue == user)
            #expect(deleted["actor"]?.stringValue == "user")
            #expect(deleted["identities"] == .integer(1))
            #expect(deleted["sessions"] == .integer(1))
        }
    }

    @Test func aBackChannelLogoutIsWrittenAsAProviderEventAndSessionsEndedByTheProvider() async throws {
        let file = try AuditFile()
        defer { file.remove() }
        var settings = BackChannelLogoutTests.settings()
        settings.audit = file.trail
        try await TestDeployment.with(settings) { app in
            let tests = BackChannelLogoutTests()
            let browser = try await tests.signedInAlice(app)
            let user = try await Self.userID(app, browser)
            #expect(try await tests.post(app, try tests.logoutToken(app)).status == 200)
            let events = try await file.waitFor("session.revoked")
            let applied = try #require(Self.only(events, "provider_event.applied").first)
            Self.checkCommonFields(applied)
            #expect(applied["provider"]?.stringValue == "google")
            #expect(applied["actor"]?.stringValue == "provider")
            #expect((applied["event_type"]?.stringValue ?? "").isEmpty == false)
            let revoked = try #require(Self.only(events, "session.revoked").first)
            #expect(revoked["actor"]?.stringValue == "provider")
            #expect(revoked["user_id"]?.stringValue == user)
            #expect(revoked["sessions"] == .integer(1))
        }
    }

    @Test func aReusedBearerRefreshTokenIsWrittenAsTheServerEndingTheChain() async throws {
        try await Self.with(NativeApp.settings) { app, file in
            let first = try await app.nativeSignIn("apple", as: People.alice)
            let old = try #require(first["session_token"])
            app.clock.advance(by: 60)
            let refresh = { (token: String) in
                try await app.postJSON(
                    app.appURL + "/auth/session/refresh", nil, headers: [("Authorization", "Bearer \(token)")])
            }
            #expect(try await refresh(old).status == 200)
            #expect(try await refresh(old).status == 401)
            let events = try await file.waitFor("session.revoked")
            let ended = try #require(Self.only(events, "session.revoked").first)
            #expect(ended["actor"]?.stringValue == "server")
            #expect(ended["scope"]?.stringValue == "refresh_chain")
            #expect(ended["code"]?.stringValue == "refresh_token_reused")
            #expect(ended["user_id"]?.stringValue == first["user_id"])
            let native = try #require(Self.only(events, "sign_in.succeeded").first)
            #expect(native["session_kind"]?.stringValue == "bearer")
        }
    }

    /// The server's keyring, given an audit trail, writes `secret.previous_used` the first time a value of a purpose
    /// opens only under a previous secret (a rotation in progress), and nothing for values under the current one.
    @Test func aValueOpenedUnderAPreviousSecretIsWrittenOncePerPurpose() async throws {
        let file = try AuditFile()
        defer { file.remove() }
        let old = String(repeating: "o", count: 32)
        var options = SignInServer.Options(
            publicURL: "https://app.example", secret: Secret(String(repeating: "n", count: 32)))
        options.previousSecrets = [Secret(old)]
        options.audit = file.trail
        let keyring = try #require(ServerContext.keyring(options))
        let label = FlowRecordSeal.label
        let sealedOld = try SecretKeyring(current: old).cipher(label: label, random: SystemRandom())
            .seal(Array("flow".utf8), associatedData: [])
        let cipher = try keyring.cipher(label: label, random: SystemRandom())
        let sealedNew = try cipher.seal(Array("flow".utf8), associatedData: [])
        #expect(try cipher.open(sealedNew, associatedData: []) == Array("flow".utf8))
        for _ in 0..<3 { #expect(try cipher.open(sealedOld, associatedData: []) == Array("flow".utf8)) }
        file.trail.record(AuditEvent(.adminAction, actor: .admin, details: ["action": .string("marker")]))
        let events = try await file.waitFor("admin.action")
        let used = Self.only(events, "secret.previous_used")
        #expect(used.count == 1)
        let event = try #require(used.first)
        Self.checkCommonFields(event)
        #expect(event["purpose"]?.stringValue == label)
        #expect(event["actor"]?.stringValue == "server")
        #expect(event["user_id"] == .null)
        let text = String(decoding: FileManager.default.contents(atPath: file.path) ?? Data(), as: UTF8.self)
        #expect(!text.contains(old))
    }

    /// A whole run (web sign-in, native sign-in, bearer refresh, sign-out) leaves no credential in the trail: not
    /// the session tokens, the authorization code, the provider's tokens or the server secret.
    @Test func theTrailOfAWholeRunHoldsNoTokenCodeSecretOrSessionID() async throws {
        try await Self.with(NativeApp.settings) { app, file in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "google", as: People.alice)
            var secrets: [String] = [app.server.options.secret.value]
            if case .get(let url) = answer,
                let query = URLComponents(string: url)?.queryItems
            {
                secrets += query.compactMap { $0.name == "code" || $0.name == "state" ? $0.value : nil }
            }
            _ = try await app.deliver(answer, in: browser)
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            secrets.append(cookie)
            let google = try #require(
                try await app.stores.accounts.tokens(for: IdentityKey(provider: "google", subject: "alice-1")))
            secrets += [google.accessToken, google.refreshToken].compactMap { $0 }
            let native = try await app.nativeSignIn("apple", as: People.bob)
            let bearer = try #require(native["session_token"])
            let refreshed = try await app.postJSON(
                app.appURL + "/auth/session/refresh", nil, headers: [("Authorization", "Bearer \(bearer)")])
            let second = try #require(refreshed["session_token"])
            secrets += [bearer, second]
            let apple = try await app.stores.accounts.tokens(for: IdentityKey(provider: "apple", subject: "bob-2"))
            secrets += [apple?.accessToken, apple?.refreshToken].compactMap { $0 }
            #expect(try await browser.post(app.routesURL + "/logout", from: app.appURL).status == 204)
            _ = try await app.postJSON(app.routesURL + "/logout", nil, headers: [("Authorization", "Bearer \(second)")])
            let events = try await file.waitFor("session.revoked", count: 2)
            #expect(Self.only(events, "sign_in.succeeded").count == 2)
            let text = String(decoding: FileManager.default.contents(atPath: file.path) ?? Data(), as: UTF8.self)
            #expect(secrets.count >= 6)
            for secret in secrets where secret.count >= 8 {
                #expect(!text.contains(secret), "a credential (\(secret.count) characters) is in the audit trail")
            }
        }
    }
}

/// The writer itself: the file is appended to and reopened after rotation; a writer that falls behind drops
/// events and counts them rather than blocking the request.
@Suite("Audit trail writer")
struct AuditTrailWriterTests {
    @Test func reopenAfterARenameWritesTheNextEventsToANewFile() async throws {
        let file = try AuditTrailTests.AuditFile()
        defer { file.remove() }
        file.trail.record(AuditEvent(.adminAction, actor: .admin, details: ["action": .string("users.delete")]))
        _ = try await file.waitFor("admin.action")
        let rotated = file.path + ".1"
        try FileManager.default.moveItem(atPath: file.path, toPath: rotated)
        file.trail.reopen()
        file.trail.record(AuditEvent(.adminAction, actor: .admin, details: ["action": .string("sessions.revoke")]))
        let fresh = try await file.waitFor("admin.action")
        #expect(fresh.map { $0["action"]?.stringValue } == ["sessions.revoke"])
        #expect(try file.events(at: rotated).map { $0["action"]?.stringValue } == ["users.delete"])
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func anUnwritableFileIsATypedErrorAtStart() throws {
        #expect(throws: AuditTrailError.self) {
            _ = try AuditTrail(destination: .file("/nonexistent-directory-\(UUID().uuidString)/audit.jsonl"))
        }
    }

    /// A FIFO nobody reads fills up: the writer blocks in `write`, the queue fills, and the next events are dropped
    /// and counted while `record` returns at once.
    @Test func aWriterThatFallsBehindDropsAndCountsWithoutBlocking() async throws {
        let directory = NSTemporaryDirectory() + "authflow-audit-fifo-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/audit.fifo"
        #expect(mkfifo(path, 0o600) == 0)
        // A reader end held open (and never read until the end) lets the writer open the FIFO.
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        let metrics = try ServerMetrics(providers: [])
        let trail = try AuditTrail(destination: .file(path), capacity: 4)
        trail.onDrop { metrics.countAuditDrop() }
        let detail = JSONValue.string(String(repeating: "x", count: 1000))
        for _ in 0..<1000 {
            trail.record(AuditEvent(.adminAction, actor: .admin, details: ["action": detail]))
        }
        #expect(trail.dropped > 0)
        let rendered = metrics.registry.render()
        #expect(rendered.contains("authflow_audit_dropped_total \(trail.dropped)"))
        // Drain the FIFO so the writer finishes, then close.
        let drainer = Thread {
            var buffer = [UInt8](repeating: 0, count: 65536)
            _ = fcntl(reader, F_SETFL, 0)
            while read(reader, &buffer, buffer.count) > 0 {}
        }
        drainer.start()
        trail.close()
        Foundation.close(reader)
    }
}

/// How a line is built and when it reaches the writer: a request's events go out together as whole lines in the
/// order they were recorded, whatever other requests do meanwhile; closing the trail writes everything queued; a
/// line is the schema's JSON object with its names sorted, its time as Foundation's RFC 3339 format gives it.
@Suite("Audit trail batches and lines")
struct AuditTrailBatchTests {
    /// Records `count` events inside a request of its own (the way `respond(to:route:with:)` does), then answers it.
    static func request(_ id: String, on trail: AuditTrail, events count: Int) async {
        let batch = AuditTrail.Batch(trail: trail)
        let context = RequestContext(
            requestID: id, route: "/auth/{provider}/callback", provider: "google", clientAddress: "192.0.2.1",
            auditBatch: batch)
        await RequestContext.$current.withValue(context) {
            for index in 0..<count {
                trail.record(AuditEvent(.adminAction, actor: .admin, details: ["action": .string("\(id)-\(index)")]))
                await Task.yield()
            }
        }
        batch.finish()
    }

    @Test func concurrentRequestsWriteTheirEventsAsWholeLinesTogetherAndInOrder() async throws {
        let file = try AuditTrailTests.AuditFile()
        defer { file.remove() }
        await withTaskGroup(of: Void.self) { group in
            for request in 0..<40 {
                group.addTask { await Self.request("request-\(request)", on: file.trail, events: 5) }
            }
        }
        // Closing writes what is queued before it returns: no waiting for the writer.
        file.trail.close()
        let text = String(decoding: FileManager.default.contents(atPath: file.path) ?? Data(), as: UTF8.self)
        #expect(text.hasSuffix("\n"))
        let events = try file.events()
        #expect(events.count == 200)
        var seen: [String] = []
        for (offset, event) in events.enumerated() {
            let id = try #require(event["request_id"]?.stringValue)
            let position = offset % 5
            // Each request's five lines follow one another, first to last.
            #expect(event["action"]?.stringValue == "\(id)-\(position)")
            if position > 0 { #expect(events[offset - 1]["request_id"]?.stringValue == id) }
            if position == 0 { seen.append(id) }
            #expect(event["client_address"]?.stringValue == "192.0.2.1")
        }
        #expect(Set(seen).count == 40)
        #expect(file.trail.dropped == 0)
    }

    @Test func anEventAfterItsRequestIsQueuedAtOnceAndNothingIsQueuedAfterClose() async throws {
        let file = try AuditTrailTests.AuditFile()
        defer { file.remove() }
        let batch = AuditTrail.Batch(trail: file.trail)
        let context = RequestContext(requestID: "late", route: "/", provider: nil, auditBatch: batch)
        RequestContext.$current.withValue(context) {
            file.trail.record(AuditEvent(.adminAction, actor: .admin, details: ["action": .string("first")]))
        }
        batch.finish()
        // A task that outlived its request still has the request's context: its event goes to the queue itself.
        RequestContext.$current.withValue(context) {
            file.trail.record(AuditEvent(.adminAction, actor: .admin, details: ["action": .string("second")]))
        }
        let unanswered = AuditTrail.Batch(trail: file.trail)
        RequestContext.$current.withValue(
            RequestContext(requestID: "cut", route: "/", provider: nil, auditBatch: unanswered)
        ) {
            file.trail.record(AuditEvent(.adminAction, actor: .admin, details: ["action": .string("third")]))
        }
        file.trail.close()
        // A request answered after the trail closed (the server stops once requests are answered) is dropped and
        // counted.
        unanswered.finish()
        #expect(try file.events().map { $0["action"]?.stringValue } == ["first", "second"])
        #expect(try file.events().map { $0["request_id"]?.stringValue } == ["late", "late"])
        #expect(file.trail.dropped == 1)
    }

    /// The line written member by member is the JSON object of the schema: the fixed fields, then the details,
    /// names in UTF-8 order, a detail named like a fixed field left out.
    @Test func aLineIsTheSchemasObjectWithSortedNames() throws {
        let time = Date(timeIntervalSince1970: 1_796_607_000.123)
        let events = [
            AuditEvent(
                .adminAction, actor: .admin, details: ["action": .string("users.delete"), "sessions": .integer(3)]),
            AuditEvent.signedIn(UserID(rawValue: "u_1"), provider: "google", intent: "login", session: "cookie"),
            AuditEvent(.signInRefused, outcome: .failure, code: "state_mismatch", provider: "x"),
            AuditEvent(.accountDeleted, details: ["code": .string("hidden"), "zone": .string("a\"b\n"), "aa": .null]),
            AuditEvent(.identityUnlinked, details: ["identities": .integer(1), "purpose": .string("é ☃")]),
        ]
        for (index, event) in events.enumerated() {
            let requestID: String? = index.isMultiple(of: 2) ? "req-\(index)" : nil
            let line = event.line(time: time, requestID: requestID, clientAddress: index == 1 ? nil : "203.0.113.7")
            var object = event.details
            object["version"] = .integer(1)
            object["time"] = .string(AuditEvent.timestamp(time))
            object["event"] = .string(event.kind.rawValue)
            object["outcome"] = .string(event.outcome.rawValue)
            object["code"] = event.code.map { .string($0) } ?? .null
            object["request_id"] = requestID.map { .string($0) } ?? .null
            object["client_address"] = index == 1 ? .null : .string("203.0.113.7")
            object["user_id"] = event.userID.map { .string($0) } ?? .null
            object["provider"] = event.provider.map { .string($0) } ?? .null
            object["actor"] = event.actor.map { .string($0.rawValue) } ?? .null
            #expect(line == JSONValue.object(object).serializedBytes() + [0x0A])
        }
    }

    @Test func timestampsAreFoundationsRFC3339WithMilliseconds() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var dates = [
            "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "2000-02-29T12:00:00.500Z",
            "1900-03-01T00:00:00.001Z", "2100-02-28T23:59:59.999Z", "2026-12-07T01:30:00.123Z",
            "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
        ].compactMap { try? style.parse($0) }
        #expect(dates.count == 8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Double(state >> 11) / Double(1 << 53) * 6e9 - 2e9
            dates.append(Date(timeIntervalSinceReferenceDate: seconds))
        }
        for date in dates {
            #expect(AuditEvent.timestamp(date) == date.formatted(style), "\(date.timeIntervalSinceReferenceDate)")
        }
    }
}
