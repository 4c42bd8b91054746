import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlow

@Suite struct FlowRecordSerializationTests {
    static func record(
        provider: String = "google", nonce: String? = "n0nce", pkceVerifier: String? = "v3rifier",
        returnTo: String? = "/home?a=1", intent: SignInIntent = .login, createdAt: Double = 1_764_576_000.123
    ) -> FlowRecord {
        FlowRecord(
            provider: provider, state: "st4te_-", nonce: nonce, pkceVerifier: pkceVerifier, returnTo: returnTo,
            browserBindingDigest: "b1nding", intent: intent, createdAt: Date(timeIntervalSince1970: createdAt))
    }

    /// The grant's DPoP key (RFC 9449) travels in the record whole (private), written as both paths write it, and a
    /// `dpop_jwk` that is not a key is an invalid record.
    @Test func carriesTheDPoPKey() throws {
        var record = Self.record()
        record.dpopKey = try JWK.generateP256()
        let bytes = record.serialized()
        #expect(bytes == record.jsonValue().serializedBytes())
        let read = try FlowRecord(serialized: bytes)
        #expect(read.dpopKey == record.dpopKey && read.dpopKey?.isPrivate == true)
        #expect(!record.description.contains("\"d\"") && record.description.contains("dpop: <redacted>"))
        var object = try #require(record.jsonValue().objectValue)
        object["dpop_jwk"] = "not a key"
        #expect(throws: FlowStoreError.self) {
            _ = try FlowRecord(serialized: JSONValue.object(object).serializedBytes())
        }
    }

    @Test func writesTheSameBytesAsTheRecordsJSONValue() throws {
        let records = [
            Self.record(),
            Self.record(nonce: nil, pkceVerifier: nil, returnTo: nil, intent: .register),
            Self.record(provider: "my-oidc_2", nonce: nil, returnTo: "/", intent: .link, createdAt: 0),
            // Values that need escaping: quotes, backslashes, control characters, and non-ASCII text.
            Self.record(returnTo: "/a\"b\\c\n\t\u{1}\u{1F}é/ü?x=\"1\"", createdAt: 1_999_999_999.9996),
            Self.record(provider: "quote\"d", nonce: "\\", pkceVerifier: "\u{0}", returnTo: ""),
        ]
        for record in records {
            let bytes = record.serialized()
            #expect(bytes == record.jsonValue().serializedBytes(), "\(String(decoding: bytes, as: UTF8.self))")
            let read = try FlowRecord(serialized: bytes)
            #expect(read.provider == record.provider && read.nonce == record.nonce)
            #expect(read.pkceVerifier == record.pkceVerifier && read.returnTo == record.returnTo)
        }
        #expect(
            String(decoding: Self.record().serialized(), as: UTF8.self)
                == #"{"browser_binding":"b1nding","created_at":1764576000123,"intent":"login","nonce":"n0nce","#
                + #""pkce_verifier":"v3rifier","provider":"google","return_to":"/home?a=1","state":"st4te_-","v":1}"#)
    }
}
