import AuthFlow
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

    @Test(arguments: ["9223372036854775807:x", "9223372036854775806:", "99999999999999999999:x", "5:abc", "-1:", "x"])
    func refusesFieldLengthsBeyondTheBytes(_ text: String) {
        let error = #expect(throws: StoreError.self) {
            try RedisSessionRecord.decode(Array(text.utf8), operation: "test")
        }
        #expect(error?.code == .corruptData)
    }
}
