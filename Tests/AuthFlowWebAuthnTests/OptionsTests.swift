import AuthFlowJOSE
import AuthFlowTestSupport
import Testing

@testable import AuthFlowWebAuthn

@Suite("WebAuthn options JSON")
struct OptionsTests {
    let relyingParty = WebAuthnRelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])

    @Test func creationOptionsHaveTheLevel3Members() {
        let options = WebAuthnOptions.creation(
            relyingParty: relyingParty, user: WebAuthnUser(handle: [1, 2, 3], name: "ada", displayName: "Ada"),
            challenge: [0xFF, 0xEE], exclude: [[9, 9]], timeout: .seconds(300))
        #expect(options["rp"]?["id"] == "example.com")
        #expect(options["user"]?["id"] == "AQID")
        #expect(options["challenge"] == "_-4")
        #expect(options["timeout"] == 300_000)
        #expect(options["pubKeyCredParams"]?.arrayValue?.compactMap { $0["alg"]?.int64Value } == [-7, -8, -257])
        #expect(options["excludeCredentials"]?.arrayValue?.first?["id"] == "CQk")
        #expect(options["authenticatorSelection"]?["residentKey"] == "required")
        #expect(options["authenticatorSelection"]?["userVerification"] == "required")
        #expect(options["attestation"] == "none")
    }

    @Test func requestOptionsAllowAnyDiscoverableCredential() {
        let options = WebAuthnOptions.request(relyingParty: relyingParty, challenge: [1], timeout: .milliseconds(1500))
        #expect(options["rpId"] == "example.com")
        #expect(options["allowCredentials"] == [])
        #expect(options["timeout"] == 1500)
        #expect(options["userVerification"] == "required")
    }
}

@Suite("Software authenticator and options")
struct SoftwareAuthenticatorOptionsTests {
    @Test func anExcludedCredentialIsNotCreatedAgainAndAllowCredentialsIsHonoured() throws {
        let ceremonies = Ceremonies()
        let first = try ceremonies.register()
        let options = WebAuthnOptions.creation(
            relyingParty: ceremonies.relyingParty, user: ceremonies.user, challenge: [1], exclude: [first.id],
            timeout: .seconds(60))
        #expect(throws: SoftwareAuthenticator.Refusal.self) {
            _ = try ceremonies.authenticator.register(options: ["publicKey": options], origin: Ceremonies.origin)
        }
        var request = WebAuthnOptions.request(
            relyingParty: ceremonies.relyingParty, challenge: [2], timeout: .seconds(60))
        request = replacing(request, ["allowCredentials"], with: [["type": "public-key", "id": "AAAA"]])
        #expect(throws: SoftwareAuthenticator.Refusal.self) {
            _ = try ceremonies.authenticator.authenticate(options: request, origin: Ceremonies.origin)
        }
    }
}

@Suite("Credential records")
struct CredentialRecordTests {
    @Test func aaguidTextAndStoredCredential() throws {
        var registered = try Ceremonies().register()
        #expect(registered.aaguidText == "00000000-0000-0000-0000-000000000000")
        registered.aaguid = hex("adce000235bcc60a648b0b25f1f05503")
        #expect(registered.aaguidText == "adce0002-35bc-c60a-648b-0b25f1f05503")
        let stored = StoredCredential(registered, userHandle: [7])
        #expect(stored.id == registered.id && stored.publicKey == registered.publicKey && stored.userHandle == [7])
    }
}
