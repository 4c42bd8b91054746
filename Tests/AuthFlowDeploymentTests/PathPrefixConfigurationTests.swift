import AuthFlow
import AuthFlowDeployment
import Testing

/// `server.path_prefix`: where the sign-in routes live, and the default `redirect_uri` with them.
@Suite struct PathPrefixConfigurationTests {
    func yaml(_ line: String) -> String {
        """
        server:
          public_url: https://app.example
          secret: \(String(repeating: "x", count: 32))
        \(line)

        """ + minimalProviders
    }

    @Test func readsTheProviderLogoutKeys() throws {
        let configuration = try makeLoader().load(
            yaml: yaml("") + """
                    endpoints: { end_session: "https://idp.example/logout?tenant=t1" }
                    post_logout_redirect_uri: https://app.example/bye

                """, fileName: "providers.yaml")
        let google = try #require(configuration.providers.first)
        #expect(google.endpoints.endSession == "https://idp.example/logout?tenant=t1")
        #expect(google.postLogoutRedirectURI == "https://app.example/bye")
        let error = try loadError(yaml("") + "    post_logout_redirect_uri: http://app.example/bye\n")
        #expect(error.issues.map(\.code) == [.insecureURL])
    }

    @Test func defaultsToAuth() throws {
        let configuration = try makeLoader().load(yaml: yaml(""), fileName: "providers.yaml")
        #expect(configuration.server?.pathPrefix == "/auth")
        let google = try #require(configuration.providers.first)
        #expect(configuration.redirectURI(for: google) == "https://app.example/auth/google/callback")
    }

    @Test func theDefaultRedirectURIFollowsThePrefix() throws {
        for prefix in ["/login", "/api/auth", "/v1.0/sign-in_~"] {
            let configuration = try makeLoader().load(
                yaml: yaml("  path_prefix: \(prefix)"), fileName: "providers.yaml")
            #expect(configuration.server?.pathPrefix == prefix)
            let google = try #require(configuration.providers.first)
            #expect(google.redirectURI == "https://app.example\(prefix)/google/callback")
            #expect(configuration.redirectURI(for: google) == "https://app.example\(prefix)/google/callback")
        }
    }

    @Test func refusesAPrefixThatIsNotOneCleanPath() throws {
        for value in ["login", "/", "/login/", "/a/../b", "/a/./b", "//a", "/a b", "\"/a?x\"", "/%2e%2e", "\"\""] {
            let error = try loadError(yaml("  path_prefix: \(value)"))
            #expect(error.issues.map(\.code) == [.invalidValue], "\(value)")
            let issue = try #require(error.issues.first)
            #expect(issue.message.contains("server.path_prefix"), "\(value)")
            #expect(issue.location?.line == 4, "\(value)")
            #expect(issue.location?.column == 16, "\(value)")
        }
    }
}
