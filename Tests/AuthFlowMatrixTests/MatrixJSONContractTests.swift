import AuthFlow
import AuthFlowJOSE
import AuthFlowMatrix
import Foundation
import Testing

/// The JSON contract (docs/configuration.md) for the plain and hardened example configurations, read from the library
/// (`AuthFlowCLITests` checks that `authflow matrix --format json` prints exactly what the library renders).
@Suite struct MatrixJSONContractTests {
    /// The provider object named `name` in a matrix document.
    static func provider(_ name: String, in document: JSONValue) throws -> [String: JSONValue] {
        let providers = try #require(document["providers"]?.arrayValue, "no providers array")
        return try #require(
            providers.compactMap(\.objectValue).first { $0["name"]?.stringValue == name }, "no provider \(name)")
    }

    static func capability(_ name: String, of provider: [String: JSONValue]) throws -> [String: JSONValue] {
        try #require(provider["capabilities"]?[name]?.objectValue, "no capability \(name)")
    }

    static func checkPlain(_ document: JSONValue) throws {
        let names = try #require(document["providers"]?.arrayValue).compactMap { $0["name"]?.stringValue }
        #expect(names == ["apple", "google", "facebook", "x"])

        let apple = try provider("apple", in: document)
        #expect(apple["type"] == .string("apple"))
        #expect(apple["protocol"] == .string("oidc"))
        #expect(apple["identity_source"] == .string("id_token"))
        #expect(apple["client_auth"] == .string("es256_client_secret_jwt"))
        #expect(apple["callback_method"] == .string("POST"))
        #expect(apple["round_trips"] == .integer(1))
        let applePKCE = try capability("pkce", of: apple)
        #expect(applePKCE["support"] == .string("unsupported"))
        #expect(applePKCE["enabled"] == .bool(false))
        #expect(applePKCE["reason"] == .string("Apple's REST API documents no code_challenge parameter"))

        let google = try provider("google", in: document)
        #expect(google["protocol"] == .string("oauth2"))
        #expect(google["identity_source"] == .string("userinfo"))
        #expect(google["client_auth"] == .string("client_secret_post"))
        #expect(google["callback_method"] == .string("GET"))
        #expect(google["round_trips"] == .integer(2))
        #expect(try capability("pkce", of: google) == ["support": "optional", "enabled": .bool(false)])
        #expect(try capability("oidc", of: google) == ["support": "optional", "enabled": .bool(false)])

        let facebook = try provider("facebook", in: document)
        #expect(facebook["protocol"] == .string("oauth2"))
        #expect(facebook["identity_source"] == .string("userinfo"))
        #expect(facebook["client_auth"] == .string("client_secret_get"))
        #expect(facebook["callback_method"] == .string("GET"))
        #expect(try capability("pkce", of: facebook) == ["support": "optional", "enabled": .bool(false)])

        let x = try provider("x", in: document)
        #expect(x["protocol"] == .string("oauth2"))
        #expect(x["identity_source"] == .string("userinfo"))
        #expect(x["client_auth"] == .string("client_secret_basic"))
        #expect(x["callback_method"] == .string("GET"))
        #expect(try capability("pkce", of: x) == ["support": "required", "enabled": .bool(true)])

        // Which emails each plugin vouches for as linkable (link_by_verified_email).
        #expect(apple["email_linkable"] == .string("email_verified, and not a private relay address"))
        #expect(google["email_linkable"] == .string("email_verified"))
        #expect(facebook["email_linkable"] == .string("never"))
        #expect(x["email_linkable"] == .string("confirmed_email"))

        let googleAdvice = try #require(google["advisories"]?.arrayValue).compactMap(\.stringValue)
        #expect(
            googleAdvice.contains(
                "google: OIDC available but off — identity trusted over TLS only; set capabilities.oidc: true "
                    + "(one round trip fewer)"))
        let facebookAdvice = try #require(facebook["advisories"]?.arrayValue).compactMap(\.stringValue)
        #expect(facebookAdvice.contains { $0.hasPrefix("facebook: PKCE available but off") })
    }

    static func checkHardened(_ document: JSONValue) throws {
        let google = try provider("google", in: document)
        #expect(google["protocol"] == .string("oidc"))
        #expect(google["identity_source"] == .string("id_token"))
        #expect(google["round_trips"] == .integer(1))
        #expect(try capability("pkce", of: google) == ["support": "optional", "enabled": .bool(true)])
        #expect(try capability("oidc", of: google) == ["support": "optional", "enabled": .bool(true)])
        let facebook = try provider("facebook", in: document)
        #expect(try capability("pkce", of: facebook) == ["support": "optional", "enabled": .bool(true)])
        for name in ["apple", "google", "facebook", "x"] {
            let details = try #require(try provider(name, in: document)["advisory_details"]?.arrayValue)
            #expect(
                details.allSatisfy { $0["severity"] == .string("note") }, "hardening advice left for \(name)")
        }
    }

    /// Every provider object carries every key of the contract, with a value of the documented kind.
    static func checkShape(_ document: JSONValue) throws {
        for provider in try #require(document["providers"]?.arrayValue) {
            for key in [
                "name", "type", "protocol", "identity_source", "client_auth", "callback_method", "email_linkable",
            ] {
                #expect(provider[key]?.stringValue != nil, "\(key) missing or not a string")
            }
            #expect(provider["round_trips"]?.int64Value != nil)
            #expect(provider["par"]?.boolValue != nil, "par missing or not a boolean")
            #expect(provider["request_object"]?.boolValue != nil, "request_object missing or not a boolean")
            #expect(provider["dpop"]?.boolValue != nil, "dpop missing or not a boolean")
            #expect(
                provider["profile"] == .null || provider["profile"]?.stringValue == "fapi2", "profile: null or fapi2")
            #expect(provider["advisories"]?.arrayValue?.allSatisfy { $0.stringValue != nil } == true)
            let capabilities = try #require(provider["capabilities"]?.objectValue)
            #expect(Set(capabilities.keys) == Set(Capability.allCases.map(\.rawValue)))
            for (_, state) in capabilities {
                let support = try #require(state["support"]?.stringValue)
                #expect(["required", "optional", "unsupported"].contains(support))
                #expect(state["enabled"]?.boolValue != nil)
                #expect((state["reason"] != nil) == (support == "unsupported"))
            }
        }
    }

    static func document(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }

    @Test func plainExampleFromTheLibrary() throws {
        let matrix = CapabilityMatrix(providers: try MatrixTestSupport.providers("examples/plain.yaml"))
        let document = try Self.document(matrix.render(format: .json))
        try Self.checkShape(document)
        try Self.checkPlain(document)
    }

    @Test func hardenedRootConfigurationFromTheLibrary() throws {
        let matrix = CapabilityMatrix(providers: try MatrixTestSupport.providers("providers.yaml"))
        let document = try Self.document(matrix.render(format: .json))
        try Self.checkShape(document)
        try Self.checkHardened(document)
    }

    @Test func nativeSupportIsShownPerProvider() throws {
        let providers = try MatrixTestSupport.providers(
            yaml: """
                server: {public_url: https://app.example}
                providers:
                  apple: {type: apple, client_id: com.example.web, team_id: T, key_id: K, private_key_file: AuthKey.p8,
                    native_clients: [com.example.ios]}
                  google: {type: google, client_id: web, client_secret: s}
                  x: {type: x, client_id: abc, client_secret: s}

                """)
        let document = try Self.document(CapabilityMatrix(providers: providers).render(format: .json))
        let native = { (name: String) throws -> JSONValue? in try Self.provider(name, in: document)["native"] }
        #expect(
            try native("apple")
                == .object(["support": "supported", "enabled": .bool(true), "clients": .array(["com.example.ios"])]))
        #expect(
            try native("google") == .object(["support": "supported", "enabled": .bool(false), "clients": .array([])]))
        #expect(try native("x") == .object(["support": "unsupported", "enabled": .bool(false), "clients": .array([])]))
        let text = CapabilityMatrix(providers: providers).render(format: .text)
        #expect(text.contains("on (1 app)"))
    }

    @Test func providerLogoutSupportFollowsTheEndSessionEndpoint() throws {
        let providers = try MatrixTestSupport.providers(
            yaml: """
                server: {public_url: https://app.example}
                providers:
                  google: {type: google, client_id: web, client_secret: s}
                  okta: {type: google, client_id: web, client_secret: s,
                    endpoints: {end_session: "https://idp.example/oauth2/default/v1/logout"}}

                """)
        let document = try Self.document(CapabilityMatrix(providers: providers).render(format: .json))
        let logout = { (name: String) throws -> JSONValue? in try Self.provider(name, in: document)["provider_logout"] }
        #expect(try logout("google") == .object(["support": "unsupported"]))
        #expect(try logout("okta") == .object(["support": "supported"]))
    }

    @Test func emptyMatrixIsAnEmptyProviderList() throws {
        let document = try Self.document(CapabilityMatrix(providers: []).render(format: .json))
        #expect(document == .object(["providers": .array([])]))
    }
}
