import AuthFlow
import Foundation
import Testing

@Suite struct FlowRecordTests {
    @Test func serializesAndReadsBack() throws {
        let record = FlowRecord(
            provider: "apple", state: "st", nonce: "no", pkceVerifier: nil, returnTo: "/after",
            browserBindingDigest: "dig", intent: .link, createdAt: Date(timeIntervalSince1970: 1_750_000_000.25))
        let copy = try FlowRecord(serialized: record.serialized())
        #expect(copy == record)
    }

    @Test func refusesBytesThatAreNotARecord() {
        for text in ["", "{}", "[1]", #"{"v":2,"provider":"a"}"#, #"{"v":1,"provider":"a","state":"s"}"#] {
            #expect(throws: FlowStoreError.self) { try FlowRecord(serialized: Array(text.utf8)) }
        }
    }

    @Test func descriptionRedactsSecrets() {
        let record = FlowRecord(
            provider: "google", state: "state-secret", nonce: "nonce-secret", pkceVerifier: "verifier-secret",
            returnTo: nil, browserBindingDigest: "digest-secret", intent: .login, createdAt: Date())
        for secret in ["state-secret", "nonce-secret", "verifier-secret", "digest-secret"] {
            #expect(!record.description.contains(secret))
        }
    }
}

@Suite struct TokenSetTests {
    @Test func descriptionRedactsEveryTokenValue() {
        let tokens = TokenSet(
            accessToken: "access-secret", tokenType: "Bearer", refreshToken: "refresh-secret", expiresIn: 3600,
            idToken: "id-secret", scope: "openid")
        for text in [tokens.description, tokens.debugDescription, String(reflecting: tokens), "\(tokens)"] {
            #expect(!text.contains("access-secret"))
            #expect(!text.contains("refresh-secret"))
            #expect(!text.contains("id-secret"))
        }
        var dumped = ""
        dump(tokens, to: &dumped)
        #expect(!dumped.contains("secret"))
        #expect(tokens.description.contains("refresh_token: <redacted>"))
    }
}

@Suite struct SignInErrorTests {
    @Test func codesAreStableSnakeCaseWithStatusHints() {
        let expected: [(SignInError.Code, String, Int)] = [
            (.invalidState, "invalid_state", 400), (.stateExpired, "state_expired", 400),
            (.stateProviderMismatch, "state_provider_mismatch", 403),
            (.browserBindingMismatch, "browser_binding_mismatch", 403),
            (.wrongCallbackMethod, "wrong_callback_method", 400), (.providerError, "provider_error", 401),
            (.missingCode, "missing_code", 400), (.tokenEndpointError, "token_endpoint_error", 401),
            (.invalidTokenResponse, "invalid_token_response", 401), (.idTokenInvalid, "id_token_invalid", 401),
            (.userinfoError, "userinfo_error", 401), (.userinfoSubjectMismatch, "userinfo_subject_mismatch", 401),
            (.jwksUnavailable, "jwks_unavailable", 401), (.unknownProvider, "unknown_provider", 400),
        ]
        for (code, raw, status) in expected {
            #expect(code.rawValue == raw)
            #expect(SignInError(code, "m").statusHint == status)
        }
    }
}
