import AuthFlow
import AuthFlowDeployment
import Testing

/// `type: microsoft` with `client_auth: private_key_jwt`: `key_id` is the certificate's thumbprint.
@Suite struct MicrosoftCertificateConfigurationTests {
    static let key = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgh7pAjb0iDzUBG+Do
        KSTbb+vWR58YF5ayDkOZGy8o5BKhRANCAATES8QEQxp88rTHk//fcpKorBZ1MiG+
        c9w/TNF158+CWIodpx71C/RMi7WztZFYYh5AX1L4Hqw1KBPuRaCejRNB
        -----END PRIVATE KEY-----

        """

    func resolve(clientAuth: String, keyID: String?) throws -> Result<ResolvedProvider, ConfigurationError> {
        let yaml = """
            providers:
              ms:
                type: microsoft
                tenant: 11111111-2222-4333-8444-555555555555
                client_id: app
                client_auth: \(clientAuth)
                private_key_file: key.p8
                redirect_uri: https://app.example/auth/ms/callback

            """ + (keyID.map { "    key_id: \"\($0)\"\n" } ?? "")
        let configuration = try makeLoader(files: ["key.p8": Self.key]).load(yaml: yaml, fileName: "providers.yaml")
        let providers: [ResolvedProvider]
        do throws(ConfigurationError) {
            providers = try ProviderRegistry.standard.resolve(configuration)
        } catch {
            return .failure(error)
        }
        return .success(try #require(providers.first))
    }

    @Test func acceptsASHA1OrSHA256ThumbprintAndPrivateKeyJWT() throws {
        for thumbprint in [String(repeating: "AB:", count: 19) + "AB", String(repeating: "0f", count: 32)] {
            let provider = try resolve(clientAuth: "private_key_jwt", keyID: thumbprint).get()
            #expect(provider.clientAuthentication == .privateKeyJWT)
        }
    }

    @Test func refusesAMissingOrMalformedThumbprintAtItsPosition() throws {
        guard case .failure(let missing) = try resolve(clientAuth: "private_key_jwt", keyID: nil) else {
            Issue.record("expected a missing key_id to be refused")
            return
        }
        #expect(missing.issues.map(\.code.rawValue) == ["missing_required_key"])
        #expect(missing.issues.first?.location?.line == 6)
        for bad in ["KEY1234567", String(repeating: "g", count: 40), String(repeating: "a", count: 41)] {
            guard case .failure(let error) = try resolve(clientAuth: "private_key_jwt", keyID: bad) else {
                Issue.record("expected key_id \(bad) to be refused")
                continue
            }
            #expect(error.issues.map(\.code.rawValue) == ["invalid_value"], "\(bad)")
            #expect(error.issues.first?.location?.line == 9, "\(bad)")
            #expect(error.description.contains("thumbprint"), "\(bad)")
        }
    }
}
