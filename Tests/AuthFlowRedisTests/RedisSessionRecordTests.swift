import AuthFlowStores
import Foundation
import Testing

@testable import AuthFlowRedis

/// The stored form of a Redis session: what does not decode is `corrupt_data`, never a crash.
@Suite struct RedisSessionRecordTests {
    @Test func roundTripsARecord() throws {
        let record = SessionRecord(
            userID: UserID(rawValue: "u-1"), provider: "apple", subject: "s:1|x",
            createdAt: Date(timeIntervalSince1970: 1),
            expiresAt: Date(timeIntervalSince1970: 3601), providerSessionID: "sid")
        #expect(try RedisSessionRecord.decode(RedisSessionRecord.encode(record), operation: "test") == record)
    }

    @Test func roundTripsGroupsLastUseAndAgentAndReadsTheOlderForms() throws {
        let record = SessionRecord(
            userID: UserID(rawValue: "u-1"), provider: "google", subject: "s-1",
            createdAt: Date(timeIntervalSince1970: 1),
            expiresAt: Date(timeIntervalSince1970: 3601), groups: ["a,b", "c\r\n"],
            lastUsedAt: Date(timeIntervalSince1970: 7),
            agent: "Firefox on macOS")
        #expect(try RedisSessionRecord.decode(RedisSessionRecord.encode(record), operation: "test") == record)
        // Without them, a session is written as before (seven fields for a cookie), so older instances read it.
        let plain = SessionRecord(
            userID: UserID(rawValue: "u-1"), provider: "google", subject: "s-1",
            createdAt: Date(timeIntervalSince1970: 1),
            expiresAt: Date(timeIntervalSince1970: 3601))
        let written = RedisSessionRecord.encode(plain)
        #expect(String(decoding: written, as: UTF8.self) == "1:13:1.06:3601.03:u-16:google3:s-11:-")
        // Seven and eight fields, as older versions wrote them, still read.
        #expect(try RedisSessionRecord.decode(written, operation: "test") == plain)
        let bearer = try RedisSessionRecord.decode(
            Array("1:13:1.06:3601.03:u-16:google3:s-11:-6:bearer".utf8), operation: "t")
        #expect(bearer.kind == .bearer && bearer.groups == [] && bearer.lastUsedAt == bearer.createdAt)
        // Groups that are not a JSON array of strings are corrupt, not dropped.
        let corrupt = #expect(throws: StoreError.self) {
            try RedisSessionRecord.decode(
                Array("1:13:1.06:3601.03:u-16:google3:s-11:-6:cookie3:[1]1:71:-".utf8), operation: "t")
        }
        #expect(corrupt?.code == .corruptData)
    }

    @Test func roundTripsRolesAndATenantEvenWithoutGroups() throws {
        let record = SessionRecord(
            userID: UserID(rawValue: "u-1"), provider: "microsoft", subject: "t:o",
            createdAt: Date(timeIntervalSince1970: 1), expiresAt: Date(timeIntervalSince1970: 3601),
            roles: ["Admin"], tenant: "3c9d2e1f-7a6b-4c5d-8e9f-0a1b2c3d4e5f")
        #expect(try RedisSessionRecord.decode(RedisSessionRecord.encode(record), operation: "test") == record)
        let tenantOnly = SessionRecord(
            userID: UserID(rawValue: "u-1"), provider: "microsoft", subject: "t:o",
            createdAt: Date(timeIntervalSince1970: 1), expiresAt: Date(timeIntervalSince1970: 3601), tenant: "t-1")
        #expect(try RedisSessionRecord.decode(RedisSessionRecord.encode(tenantOnly), operation: "test") == tenantOnly)
    }

    @Test(arguments: ["9223372036854775807:x", "9223372036854775806:", "99999999999999999999:x", "5:abc", "-1:", "x"])
    func refusesFieldLengthsBeyondTheBytes(_ text: String) {
        let error = #expect(throws: StoreError.self) {
            try RedisSessionRecord.decode(Array(text.utf8), operation: "test")
        }
        #expect(error?.code == .corruptData)
    }
}
