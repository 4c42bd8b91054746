import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

@Suite struct InMemoryFlowStoreTests {
    static let start = Date(timeIntervalSince1970: 1_000)

    @Test func marksAStateSpentOnce() async throws {
        let store = InMemoryFlowStore(clock: ManualClock(Self.start))
        let until = Self.start.addingTimeInterval(600)
        #expect(try await store.markSpent(state: "s1", until: until))
        #expect(try await store.markSpent(state: "s1", until: until) == false)
        #expect(try await store.markSpent(state: "s2", until: until))
    }

    @Test func forgetsSpentStatesAfterTheirExpiryAndTheSkewMarginByTheInjectedClock() async throws {
        let clock = ManualClock(Self.start)
        let store = InMemoryFlowStore(clock: clock)
        #expect(try await store.markSpent(state: "s1", until: Self.start.addingTimeInterval(600)))
        clock.advance(by: 599 + FlowStoreKey.clockSkewMargin)
        #expect(try await store.markSpent(state: "s1", until: Self.start.addingTimeInterval(1200)) == false)
        clock.advance(by: 1)
        #expect(try await store.markSpent(state: "s1", until: Self.start.addingTimeInterval(1200)))
    }

    @Test func concurrentMarksSpendAStateOnce() async throws {
        let store = InMemoryFlowStore(clock: ManualClock(Self.start))
        let until = Self.start.addingTimeInterval(600)
        let winners = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 { group.addTask { (try? await store.markSpent(state: "race", until: until)) == true } }
            var count = 0
            for await won in group where won { count += 1 }
            return count
        }
        #expect(winners == 1)
    }

    @Test func capsLiveEntriesAndPurgesExpiredOnes() async throws {
        let clock = ManualClock(Self.start)
        let store = InMemoryFlowStore(clock: clock, capacity: 3)
        let until = Self.start.addingTimeInterval(60)
        for index in 0..<3 { #expect(try await store.markSpent(state: "s\(index)", until: until)) }
        do {
            _ = try await store.markSpent(state: "s3", until: until)
            Issue.record("expected the capacity to be enforced")
        } catch {
            #expect(error.code == .capacityExceeded)
        }
        clock.advance(by: 61 + FlowStoreKey.clockSkewMargin)
        #expect(try await store.markSpent(state: "s4", until: clock.now().addingTimeInterval(60)))
        #expect(await store.count == 1)
    }

    @Test func keysEntriesByADigestNotTheState() {
        let digest = FlowStoreKey.digest(of: "the-state")
        #expect(digest != "the-state")
        #expect(!digest.contains("the-state"))
        #expect(digest.count == 43)
        #expect(FlowStoreKey.digest(of: "the-state") == digest)
        #expect(FlowStoreKey.digest(of: "the-statf") != digest)
    }
}

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
