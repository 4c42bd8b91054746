import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowProviders
import AuthFlowStoreTestSupport
import Testing

@testable import AuthFlowServer

/// Only a provider whose plugin keeps its unverified profile (Apple) touches the pending-profile store.
@Suite("Pending profiles: only for plugins that declare them")
struct PendingProfileScopeTests {
    static var settings: TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.stores = { clock in
            var stores = SignInServer.Stores.memory(clock: clock)
            stores.accounts = ObservedAccountStore(stores.accounts)
            return stores
        }
        return settings
    }

    @Test func onlyApplesPluginDeclaresIt() throws {
        #expect(ProviderRegistry.standard.plugin(forType: "apple")?.keepsUnverifiedProfile == true)
        for type in ["google", "github", "microsoft", "oidc"] {
            #expect(ProviderRegistry.standard.plugin(forType: type)?.keepsUnverifiedProfile == false, "\(type)")
        }
    }

    @Test func aGoogleSignInMakesNoPendingProfileCall() async throws {
        try await TestDeployment.with(Self.settings) { app in
            let store = try #require(app.stores.accounts as? ObservedAccountStore)
            let browser = TestBrowser()
            // A first start left behind (its flow cookie stays), then a whole sign-in: no carry, no park, no take.
            _ = try await app.authorize(browser, provider: "google", as: People.alice)
            let response = try await app.signIn(browser, provider: "google", as: People.alice)
            #expect(response.status == 302, "\(response.status) \(response.text)")
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "google", subject: "alice-1")) != nil)
            #expect(store.count("putPendingProfile") == 0)
            #expect(store.count("takePendingProfile") == 0)
        }
    }

    @Test func anAppleSignInStillTakesItsFirstLoginName() async throws {
        try await TestDeployment.with(Self.settings) { app in
            let store = try #require(app.stores.accounts as? ObservedAccountStore)
            let response = try await app.signIn(TestBrowser(), provider: "apple", as: People.bob)
            #expect(response.status == 303, "\(response.status) \(response.text)")
            #expect(store.count("putPendingProfile") == 1)
            #expect(store.count("takePendingProfile") == 1)
            let identity = try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "bob-2"))
            #expect(identity?.name == "Bob Other")
        }
    }
}
