import AuthFlowStores
import Foundation
import Testing

/// The stored form of a session's groups, roles and tenant in the one column groups had: the JSON array as
/// before when there are only groups, a JSON object otherwise, and anything else corrupt.
@Suite struct SessionMembershipsTests {
    @Test func groupsAloneAreStillWrittenAsTheArrayOlderVersionsRead() throws {
        #expect(SessionRecord.encodeMemberships(groups: ["a", "b"], roles: [], tenant: nil) == #"["a","b"]"#)
        #expect(SessionRecord.encodeMemberships(groups: [], roles: [], tenant: nil) == nil)
        let old = try SessionRecord.decodeMemberships(#"["a","b"]"#, operation: "t")
        #expect(old.groups == ["a", "b"] && old.roles == [] && old.tenant == nil)
        #expect(try SessionRecord.decodeMemberships(nil, operation: "t").groups == [])
    }

    @Test func rolesOrATenantAreWrittenAsAnObjectThatRoundTrips() throws {
        let text = try #require(SessionRecord.encodeMemberships(groups: ["g"], roles: ["Admin"], tenant: "t-1"))
        #expect(text.hasPrefix("{"))
        let decoded = try SessionRecord.decodeMemberships(text, operation: "t")
        #expect(decoded.groups == ["g"] && decoded.roles == ["Admin"] && decoded.tenant == "t-1")
        let tenantOnly = try #require(SessionRecord.encodeMemberships(groups: [], roles: [], tenant: "t-2"))
        #expect(try SessionRecord.decodeMemberships(tenantOnly, operation: "t").tenant == "t-2")
    }

    @Test(arguments: [
        #"{"roles":[1]}"#, #"{"groups":"a"}"#, #"{"tenant":7}"#, "{not json", #"[1]"#, "text",
    ])
    func anyOtherStoredValueIsCorruptNotEmpty(_ text: String) {
        let error = #expect(throws: StoreError.self) { try SessionRecord.decodeMemberships(text, operation: "t") }
        #expect(error?.code == .corruptData)
    }

    @Test func theAuthenticationTimeAndClassRideInTheObjectForm() throws {
        let authTime = Date(timeIntervalSince1970: 1_700_000_000)
        let text = try #require(
            SessionRecord.encodeMemberships(groups: ["g"], roles: [], tenant: nil, authTime: authTime, acr: "mfa"))
        #expect(text.hasPrefix("{"))
        #expect(try SessionRecord.decodeMemberships(text, operation: "t").groups == ["g"])
        let decoded = try SessionRecord.decodeAuthentication(text, operation: "t")
        #expect(decoded.authTime == authTime && decoded.acr == "mfa")
        // The array form and no value have none.
        #expect(try SessionRecord.decodeAuthentication(#"["a"]"#, operation: "t").authTime == nil)
        #expect(try SessionRecord.decodeAuthentication(nil, operation: "t").acr == nil)
    }

    @Test(arguments: [#"{"groups":[],"auth_time":"x"}"#, #"{"groups":[],"acr":5}"#])
    func aMalformedAuthenticationIsCorrupt(_ text: String) {
        let error = #expect(throws: StoreError.self) { try SessionRecord.decodeAuthentication(text, operation: "t") }
        #expect(error?.code == .corruptData)
    }
}
