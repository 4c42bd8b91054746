import AuthFlowJOSE
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

/// Every ``SessionStore`` operation, run against the in-memory, SQLite, PostgreSQL and Redis implementations alike.
@Suite struct SessionStoreConformanceTests {
    static func record(
        _ user: UserID = .alice, _ identity: IdentityKey = .appleAlice, lifetime: Double = 3600
    ) -> SessionRecord {
        SessionRecord(
            userID: user, provider: identity.provider, subject: identity.subject, createdAt: StoreHarness.start,
            expiresAt: StoreHarness.start + lifetime)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func createsAndLooksUpSessionsUntilTheyExpire(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        try await stores.sessions.createSession(id: "cookie-1", record: Self.record())
        #expect(try await stores.sessions.session(id: "cookie-1") == Self.record())
        #expect(try await stores.sessions.session(id: "cookie-1")?.identity == .appleAlice)
        #expect(try await stores.sessions.session(id: "cookie-2") == nil)
        stores.clock.advance(by: 3599)
        #expect(try await stores.sessions.session(id: "cookie-1") != nil)
        stores.clock.advance(by: 1)
        #expect(try await stores.sessions.session(id: "cookie-1") == nil)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func keepsTheKindOfABearerSessionAndEndsItWithTheOthers(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let base = Self.record()
        let bearer = SessionRecord(
            userID: base.userID, provider: base.provider, subject: base.subject, createdAt: base.createdAt,
            expiresAt: base.expiresAt, providerSessionID: "sid-1", kind: .bearer)
        try await stores.sessions.createSession(id: "bearer-1", record: bearer)
        try await stores.sessions.createSession(id: "cookie-1", record: base)
        #expect(try await stores.sessions.session(id: "bearer-1") == bearer)
        #expect(try await stores.sessions.session(id: "cookie-1")?.kind == .cookie)
        #expect(try await stores.sessions.deleteSessions(userID: .alice) == 2)
        #expect(try await stores.sessions.session(id: "bearer-1") == nil)
        try await stores.sessions.createSession(id: "bearer-2", record: bearer)
        #expect(try await stores.sessions.deleteSessions(identity: .appleAlice) == 1)
        try await stores.sessions.createSession(id: "bearer-3", record: bearer)
        #expect(try await stores.sessions.deleteSessions(identity: .appleAlice, providerSessionID: "sid-1") == 1)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func keepsARotatedRecordOfARefreshChainAndEndsItWithTheUsersSessions(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        // A chain's start to the microsecond: the server matches a chain's records by it.
        let start = StoreHarness.start + 0.123_456
        let bearer = SessionRecord(
            userID: .alice, provider: "apple", subject: "alice-1", createdAt: start, expiresAt: start + 3600,
            providerSessionID: "sid-1", kind: .bearer, lastUsedAt: start + 60)
        let rotated = SessionRecord(
            userID: .alice, provider: "apple", subject: "alice-1", createdAt: start, expiresAt: start + 7200,
            providerSessionID: "sid-1", kind: .rotated, lastUsedAt: start + 60)
        try await stores.sessions.createSession(id: "bearer-2", record: bearer)
        try await stores.sessions.createSession(id: "rotated:bearer-1", record: rotated)
        #expect(try await stores.sessions.session(id: "rotated:bearer-1") == rotated)
        #expect(try await stores.sessions.session(id: "bearer-2")?.createdAt == start)
        let listed = try await stores.sessions.sessions(userID: .alice)
        #expect(Set(listed.map(\.record)) == [bearer, rotated])
        // The rotated record lives to its own expiry, past the session's.
        stores.clock.advance(by: 3601)
        #expect(try await stores.sessions.session(id: "bearer-2") == nil)
        #expect(try await stores.sessions.session(id: "rotated:bearer-1")?.kind == .rotated)
        let next = SessionRecord(
            userID: .alice, provider: "apple", subject: "alice-1", createdAt: start, expiresAt: start + 7000,
            kind: .bearer, lastUsedAt: start + 3600)
        try await stores.sessions.createSession(id: "bearer-3", record: next)
        // Ending every session of the user ends the rotated record too, and counts only the session.
        #expect(try await stores.sessions.endSessions(of: .alice) == 1)
        #expect(try await stores.sessions.sessions(userID: .alice) == [])
        #expect(try await stores.sessions.session(id: "rotated:bearer-1") == nil)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func refusesADuplicateSessionID(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        try await stores.sessions.createSession(id: "cookie-1", record: Self.record())
        let duplicate = await storeError { () throws(StoreError) in
            try await stores.sessions.createSession(id: "cookie-1", record: Self.record(.bob, .googleBob))
        }
        #expect(duplicate?.code == .duplicateSession)
        #expect(duplicate.map { !$0.description.contains("cookie-1") } == true)
        #expect(try await stores.sessions.session(id: "cookie-1")?.userID == .alice)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func deletesOneSession(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        try await stores.sessions.createSession(id: "cookie-1", record: Self.record())
        try await stores.sessions.createSession(id: "cookie-2", record: Self.record())
        #expect(try await stores.sessions.deleteSession(id: "cookie-1"))
        #expect(try await stores.sessions.deleteSession(id: "cookie-1") == false)
        #expect(try await stores.sessions.session(id: "cookie-1") == nil)
        #expect(try await stores.sessions.session(id: "cookie-2") != nil)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func deletesEverySessionOfAUser(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        try await stores.sessions.createSession(id: "a1", record: Self.record(.alice, .appleAlice))
        try await stores.sessions.createSession(id: "a2", record: Self.record(.alice, .googleAlice))
        try await stores.sessions.createSession(id: "b1", record: Self.record(.bob, .googleBob))
        #expect(try await stores.sessions.deleteSessions(userID: .alice) == 2)
        #expect(try await stores.sessions.session(id: "a1") == nil)
        #expect(try await stores.sessions.session(id: "a2") == nil)
        #expect(try await stores.sessions.session(id: "b1") != nil)
        #expect(try await stores.sessions.deleteSessions(userID: .alice) == 0)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func deletesEverySessionOfAnIdentity(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        try await stores.sessions.createSession(id: "a1", record: Self.record(.alice, .appleAlice))
        try await stores.sessions.createSession(id: "a2", record: Self.record(.alice, .appleAlice))
        try await stores.sessions.createSession(id: "a3", record: Self.record(.alice, .googleAlice))
        #expect(try await stores.sessions.deleteSessions(identity: .appleAlice) == 2)
        #expect(try await stores.sessions.session(id: "a1") == nil)
        #expect(try await stores.sessions.session(id: "a3") != nil)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func deletesTheSessionsOfOneProviderSession(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        func record(_ identity: IdentityKey, sid: String?) -> SessionRecord {
            SessionRecord(
                userID: .alice, provider: identity.provider, subject: identity.subject, createdAt: StoreHarness.start,
                expiresAt: StoreHarness.start + 3600, providerSessionID: sid)
        }
        try await stores.sessions.createSession(id: "s1", record: record(.googleAlice, sid: "sid-1"))
        try await stores.sessions.createSession(id: "s2", record: record(.googleAlice, sid: "sid-2"))
        try await stores.sessions.createSession(id: "s3", record: record(.googleAlice, sid: nil))
        try await stores.sessions.createSession(id: "s4", record: record(.appleAlice, sid: "sid-1"))
        try await stores.sessions.createSession(id: "s5", record: record(.googleBob, sid: "sid-5"))
        #expect(try await stores.sessions.session(id: "s1")?.providerSessionID == "sid-1")
        #expect(try await stores.sessions.session(id: "s3")?.providerSessionID == nil)

        // Another subject's sid ends nothing; the identity's own sid ends that session only.
        #expect(try await stores.sessions.deleteSessions(identity: .googleBob, providerSessionID: "sid-1") == 0)
        #expect(try await stores.sessions.deleteSessions(identity: .googleAlice, providerSessionID: "sid-1") == 1)
        #expect(try await stores.sessions.session(id: "s1") == nil)
        #expect(try await stores.sessions.session(id: "s2") != nil)
        #expect(try await stores.sessions.session(id: "s3") != nil)
        #expect(try await stores.sessions.session(id: "s4") != nil)

        // An empty subject (a logout token with sid only) matches any subject of the provider.
        let anySubject = IdentityKey(provider: "google", subject: "")
        #expect(try await stores.sessions.deleteSessions(identity: anySubject, providerSessionID: "sid-5") == 1)
        #expect(try await stores.sessions.session(id: "s5") == nil)
        let empty = await storeError { () throws(StoreError) in
            try await stores.sessions.deleteSessions(identity: .googleAlice, providerSessionID: "")
        }
        #expect(empty?.code == .invalidValue)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func refusesInvalidSessions(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let emptyID = await storeError { () throws(StoreError) in
            try await stores.sessions.createSession(id: "", record: Self.record())
        }
        #expect(emptyID?.code == .invalidValue)
        let backwards = await storeError { () throws(StoreError) in
            try await stores.sessions.createSession(id: "c", record: Self.record(lifetime: 0))
        }
        #expect(backwards?.code == .invalidValue)
        let lookup = await storeError { () throws(StoreError) in try await stores.sessions.session(id: "") }
        #expect(lookup?.code == .invalidValue)
        try await stores.sessions.checkHealth()
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func keepsGroupsLastUseAndAgentAndListsAUsersLiveSessions(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let base = Self.record()
        let rich = SessionRecord(
            userID: base.userID, provider: base.provider, subject: base.subject, createdAt: base.createdAt + 1,
            expiresAt: base.expiresAt, kind: .bearer, groups: ["admins", "ops team", "ünï"],
            lastUsedAt: base.createdAt + 5, agent: "Chrome on Linux")
        try await stores.sessions.createSession(id: "rich", record: rich)
        try await stores.sessions.createSession(id: "plain", record: base)
        try await stores.sessions.createSession(id: "short", record: Self.record(lifetime: 10))
        try await stores.sessions.createSession(id: "bob", record: Self.record(.bob, .googleBob))
        #expect(try await stores.sessions.session(id: "rich") == rich)
        #expect(try await stores.sessions.session(id: "plain")?.groups == [])
        #expect(try await stores.sessions.session(id: "plain")?.lastUsedAt == base.createdAt)
        stores.clock.advance(by: 10)
        let listed = try await stores.sessions.sessions(userID: .alice)
        // Oldest first; the expired one is not listed; each digest is SHA-256 of its id.
        #expect(listed.map(\.record) == [base, rich])
        #expect(Set(listed.map(\.digest)) == Set(["plain", "rich"].map { Digest.sha256(Array($0.utf8)) }))
        #expect(try await stores.sessions.sessions(userID: UserID(rawValue: "nobody")) == [])
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func keepsRolesAndTheTenantApartFromGroups(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let base = Self.record()
        func with(groups: [String] = [], roles: [String] = [], tenant: String? = nil) -> SessionRecord {
            SessionRecord(
                userID: base.userID, provider: base.provider, subject: base.subject, createdAt: base.createdAt,
                expiresAt: base.expiresAt, groups: groups, roles: roles, tenant: tenant)
        }
        let records = [
            with(groups: ["admins"], roles: ["Admin", "ops:reader"], tenant: "3c9d2e1f-7a6b-4c5d-8e9f-0a1b2c3d4e5f"),
            with(roles: ["Admin"]), with(tenant: "tenant-1"),
            // Group names that look like either stored form stay names.
            with(groups: ["[\"x\"]", "{\"roles\":[\"Admin\"]}"]),
        ]
        for (index, record) in records.enumerated() {
            try await stores.sessions.createSession(id: "s\(index)", record: record)
            let stored = try #require(try await stores.sessions.session(id: "s\(index)"))
            #expect(stored == record, "\(index)")
            #expect(stored.roles == record.roles && stored.tenant == record.tenant, "\(index)")
        }
        #expect(try await stores.sessions.session(id: "s3")?.roles == [])
        #expect(Set(try await stores.sessions.sessions(userID: .alice).map(\.record)) == Set(records))
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func keepsTheAuthenticationTimeAndClassThroughTouches(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let base = Self.record()
        let authTime = Date(timeIntervalSince1970: (StoreHarness.start - 42).timeIntervalSince1970.rounded(.down))
        let records = [
            base.authenticated(at: authTime, acr: "urn:example:mfa"),
            base.authenticated(at: authTime, acr: nil),
            base.authenticated(at: nil, acr: "urn:example:pwd"),
            SessionRecord(
                userID: base.userID, provider: base.provider, subject: base.subject, createdAt: base.createdAt,
                expiresAt: base.expiresAt, groups: ["admins"], roles: ["Admin"], tenant: "tenant-1"
            ).authenticated(at: authTime, acr: "1"),
        ]
        for (index, record) in records.enumerated() {
            try await stores.sessions.createSession(id: "s\(index)", record: record)
            let stored = try #require(try await stores.sessions.session(id: "s\(index)"))
            #expect(stored == record, "\(index)")
            #expect(stored.authTime == record.authTime && stored.acr == record.acr, "\(index)")
            try await stores.sessions.touchSession(id: "s\(index)", lastUsedAt: base.createdAt + 60)
            let touched = try #require(try await stores.sessions.session(id: "s\(index)"))
            #expect(touched.authTime == record.authTime && touched.acr == record.acr, "\(index)")
            #expect(touched.groups == record.groups && touched.tenant == record.tenant, "\(index)")
        }
        // A session without them reads as before.
        try await stores.sessions.createSession(id: "plain", record: base)
        let plain = try #require(try await stores.sessions.session(id: "plain"))
        #expect(plain.authTime == nil && plain.acr == nil)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func touchMovesTheLastUseForwardOnlyAndNeverBringsASessionBack(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let base = Self.record()
        try await stores.sessions.createSession(id: "cookie-1", record: base)
        try await stores.sessions.touchSession(id: "cookie-1", lastUsedAt: base.createdAt + 60)
        #expect(try await stores.sessions.session(id: "cookie-1") == base.used(at: base.createdAt + 60))
        try await stores.sessions.touchSession(id: "cookie-1", lastUsedAt: base.createdAt + 30)
        #expect(try await stores.sessions.session(id: "cookie-1")?.lastUsedAt == base.createdAt + 60)
        // The expiry and the rest stay.
        #expect(try await stores.sessions.session(id: "cookie-1")?.expiresAt == base.expiresAt)
        try await stores.sessions.deleteSession(id: "cookie-1")
        try await stores.sessions.touchSession(id: "cookie-1", lastUsedAt: base.createdAt + 90)
        #expect(try await stores.sessions.session(id: "cookie-1") == nil)
        #expect(try await stores.sessions.sessions(userID: .alice) == [])
        let invalid = await storeError { () throws(StoreError) in
            try await stores.sessions.touchSession(id: "", lastUsedAt: base.createdAt)
        }
        #expect(invalid?.code == .invalidValue)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func deletesOneSessionByItsDigest(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        try await stores.sessions.createSession(id: "a1", record: Self.record())
        try await stores.sessions.createSession(id: "a2", record: Self.record())
        let digest = Digest.sha256(Array("a1".utf8))
        #expect(try await stores.sessions.deleteSession(digest: digest))
        #expect(try await stores.sessions.deleteSession(digest: digest) == false)
        #expect(try await stores.sessions.session(id: "a1") == nil)
        #expect(try await stores.sessions.session(id: "a2") != nil)
        #expect(try await stores.sessions.sessions(userID: .alice).count == 1)
        // Gone from the user's index too: deleting the user's sessions finds only the other.
        #expect(try await stores.sessions.deleteSessions(userID: .alice) == 1)
        let short = await storeError { () throws(StoreError) in
            try await stores.sessions.deleteSession(digest: [1, 2, 3])
        }
        #expect(short?.code == .invalidValue)
    }

    @Test(arguments: StoreBackend.availableForSessions)
    func refusesGroupsRolesTenantsAndAgentsOutOfBounds(_ backend: StoreBackend) async throws {
        let stores = try backend.makeHarness()
        let base = Self.record()
        func with(
            groups: [String] = [], agent: String? = nil, roles: [String] = [], tenant: String? = nil
        ) -> SessionRecord {
            SessionRecord(
                userID: base.userID, provider: base.provider, subject: base.subject, createdAt: base.createdAt,
                expiresAt: base.expiresAt, groups: groups, agent: agent, roles: roles, tenant: tenant)
        }
        let long = String(repeating: "g", count: SessionRecord.maximumGroupBytes + 1)
        for (index, record) in [
            with(groups: (0...SessionRecord.maximumGroups).map { "g\($0)" }), with(groups: [long]), with(groups: [""]),
            with(agent: ""), with(agent: String(repeating: "a", count: SessionRecord.maximumAgentBytes + 1)),
            with(roles: (0...SessionRecord.maximumGroups).map { "r\($0)" }), with(roles: [long]), with(roles: [""]),
            with(tenant: ""), with(tenant: long),
        ].enumerated() {
            let error = await storeError { () throws(StoreError) in
                try await stores.sessions.createSession(id: "s\(index)", record: record)
            }
            #expect(error?.code == .invalidValue, "\(index)")
        }
        #expect(try await stores.sessions.sessions(userID: .alice) == [])
    }
}
