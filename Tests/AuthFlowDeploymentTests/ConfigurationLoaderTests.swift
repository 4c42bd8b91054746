import AuthFlow
import AuthFlowDeployment
import Testing

@Suite struct ConfigurationLoaderTests {
    @Test func loadsEveryKey() throws {
        let yaml = """
            server:
              listen: 0.0.0.0:9090
              public_url: https://app.example.com/
              secret: ${SECRET}
              allowed_return_to: [/app, "https://admin.example.com"]
              session_ttl: 1h30m
              signup: false
              link_by_verified_email: true
            sandbox:
              listen: "[::1]:0"
            store:
              kind: memory
            providers:
              work-sso:
                type: oidc
                client_id: 1234
                client_secret_file: secrets/sso
                audiences: [a, b]
                scopes: [openid, email]
                capabilities:
                  pkce: true
                  form_post: false
                issuer: https://sso.example.com
                endpoints:
                  token: http://127.0.0.1:9000/token
                  jwks: http://[::1]:9000/jwks
              apple:
                client_id: com.example.web
                team_id: TEAM
                key_id: KEY
                private_key_file: /keys/apple.p8
                redirect_uri: https://app.example.com/custom
            """
        let loader = makeLoader(
            environment: ["SECRET": String(repeating: "s", count: 32)],
            files: [
                "conf/secrets/sso": "sso-secret\n",
                "/keys/apple.p8": "-----BEGIN PRIVATE KEY-----\nAA\n-----END PRIVATE KEY-----\n",
            ])
        let configuration = try loader.load(yaml: yaml, fileName: "conf/providers.yaml")
        let server = try #require(configuration.server)
        #expect(server.listen == ListenAddress(host: "0.0.0.0", port: 9090))
        #expect(server.publicURL == "https://app.example.com")
        #expect(server.secret?.value == String(repeating: "s", count: 32))
        #expect(server.allowedReturnTo == ["/app", "https://admin.example.com"])
        #expect(server.sessionTTL == 5400)
        #expect(server.signup == false)
        #expect(server.linkByVerifiedEmail == true)
        #expect(configuration.sandbox?.listen == ListenAddress(host: "::1", port: 0))
        #expect(configuration.store == StoreSettings(kind: .memory, path: "authflow.sqlite"))
        #expect(configuration.providers.map(\.name) == ["work-sso", "apple"])

        let sso = try #require(configuration.provider(named: "work-sso"))
        #expect(sso.type == "oidc")
        #expect(sso.clientID == "1234")
        #expect(sso.clientSecret?.value == "sso-secret")
        #expect(sso.audiences == ["a", "b"])
        #expect(sso.scopes == ["openid", "email"])
        #expect(sso.capabilities == ["pkce": true, "form_post": false])
        #expect(sso.capabilityLocations["pkce"]?.line == 21)
        #expect(sso.capabilityLocations["pkce"]?.column == 7)
        #expect(sso.issuer == "https://sso.example.com")
        #expect(
            sso.endpoints == ProviderEndpoints(token: "http://127.0.0.1:9000/token", jwks: "http://[::1]:9000/jwks"))
        #expect(sso.redirectURI == "https://app.example.com/auth/work-sso/callback")
        #expect(
            sso.location
                == SourceLocation(fileName: "conf/providers.yaml", line: 14, column: 3, sourceLine: "  work-sso:"))
        #expect(sso.typeLocation?.line == 15)
        #expect(sso.typeLocation?.column == 11)
        #expect(sso.keyLocations["client_id"]?.line == 16)
        #expect(sso.keyLocations["endpoints.jwks"]?.line == 26)
        #expect(sso.keyLocations["client_secret_file"]?.sourceLine == "    client_secret_file: <redacted>")

        let apple = try #require(configuration.provider(named: "apple"))
        #expect(apple.type == "apple")
        #expect(apple.typeLocation == nil)
        #expect(apple.teamID == "TEAM")
        #expect(apple.keyID == "KEY")
        #expect(apple.privateKey?.value.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        #expect(apple.redirectURI == "https://app.example.com/custom")
        #expect(apple.scopes == nil)
        #expect(apple.capabilities.isEmpty)
    }

    @Test func appliesDefaults() throws {
        let yaml =
            "server:\n  public_url: http://localhost:8080\n  secret: \(String(repeating: "k", count: 40))\n"
            + minimalProviders
        let configuration = try makeLoader().load(yaml: yaml, fileName: "providers.yaml")
        let server = try #require(configuration.server)
        #expect(server.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(server.allowedReturnTo == ["/"])
        #expect(server.sessionTTL == 8 * 3600)
        #expect(server.signup == true)
        #expect(server.linkByVerifiedEmail == false)
        #expect(configuration.sandbox == nil)
        #expect(configuration.store == StoreSettings(kind: .sqlite, path: "authflow.sqlite"))
        let google = try #require(configuration.providers.first)
        #expect(google.redirectURI == "http://localhost:8080/auth/google/callback")
        #expect(configuration.redirectURI(for: google) == "http://localhost:8080/auth/google/callback")
    }

    @Test func leavesRedirectURIOpenWithoutServer() throws {
        let configuration = try makeLoader().load(yaml: minimalProviders, fileName: "providers.yaml")
        let google = try #require(configuration.providers.first)
        #expect(google.redirectURI == nil)
        #expect(configuration.redirectURI(for: google) == nil)
        #expect(google.redirectURI(publicURL: "https://a.example/") == "https://a.example/auth/google/callback")
    }

    @Test func reportsYAMLSyntaxError() throws {
        let error = try loadError("providers:\n  google:\n    type: google\n   client_id: abc\n")
        #expect(error.issues.map(\.code) == [.invalidYAML])
        #expect(
            error.description == """
                providers.yaml:4:4: did not find expected key while parsing a block mapping started at line 2, column 3
                   client_id: abc
                   ^
                """)
    }

    @Test func reportsDuplicateKey() throws {
        let error = try loadError(minimalProviders + "    client_id: other\n")
        #expect(error.issues.map(\.code) == [.duplicateKey])
        #expect(
            error.description == """
                providers.yaml:5:5: duplicate key "client_id" (first defined at line 4, column 5)
                    client_id: other
                    ^
                """)
    }

    @Test func reportsWrongType() throws {
        let error = try loadError(minimalProviders + "    capabilities: { pkce: maybe }\n")
        #expect(error.issues.map(\.code) == [.wrongType])
        #expect(
            error.description == """
                providers.yaml:5:27: expected a boolean (true or false) for providers.google.capabilities.pkce, found "maybe"
                    capabilities: { pkce: maybe }
                                          ^
                """)
    }

    @Test func explainsYesAndQuotedBooleans() throws {
        let yes = try loadError(minimalProviders + "    capabilities: { pkce: yes }\n")
        #expect(
            yes.issues.first?.message
                == "expected a boolean (true or false) for providers.google.capabilities.pkce, found \"yes\"; "
                + "YAML 1.2 reads yes/no/on/off as strings")
        let quoted = try loadError(minimalProviders + "    capabilities: { pkce: \"true\" }\n")
        #expect(
            quoted.issues.first?.message
                == "expected a boolean (true or false) for providers.google.capabilities.pkce, found the string "
                + "\"true\"; remove the quotes")
    }

    @Test func reportsUnknownKeyWithSuggestion() throws {
        let error = try loadError("providers:\n  google:\n    type: google\n    clinet_id: abc\n")
        #expect(error.issues.map(\.code) == [.missingKey, .unknownKey])
        #expect(
            error.description == """
                providers.yaml:2:3: missing required key "client_id" in providers.google
                  google:
                  ^
                providers.yaml:4:5: unknown key "clinet_id" in providers.google; did you mean "client_id"?
                    clinet_id: abc
                    ^
                """)
    }

    @Test func listsKnownKeysWhenNothingIsClose() throws {
        let error = try loadError("store:\n  flavour: x\n" + minimalProviders)
        #expect(
            error.issues.map(\.message) == [
                "unknown key \"flavour\" in store; known keys: kind, path, postgres_url, redis_url, redis_prefix, "
                    + "operation_timeout"
            ])
    }

    @Test func readsTheStoreOperationTimeoutAndRefusesOneOutOfRange() throws {
        let configuration = try makeLoader().load(
            yaml: "store:\n  kind: memory\n  operation_timeout: 2s\n" + minimalProviders, fileName: "providers.yaml")
        #expect(configuration.store.operationTimeout == 2)
        let defaults = try makeLoader().load(yaml: minimalProviders, fileName: "providers.yaml")
        #expect(defaults.store.operationTimeout == 5)
        for bad in ["0s", "6m", "soon"] {
            let error = try loadError("store:\n  operation_timeout: \(bad)\n" + minimalProviders)
            #expect(error.issues.map(\.code) == [.invalidDuration], "\(bad)")
        }
    }

    @Test func reportsMissingRequiredKey() throws {
        let error = try loadError("server:\n  secret: \(String(repeating: "x", count: 32))\n" + minimalProviders)
        #expect(error.issues.map(\.code) == [.missingKey])
        #expect(
            error.description == """
                providers.yaml:1:1: missing required key "public_url" in server
                server:
                ^
                """)
    }

    @Test func reportsMissingProviders() throws {
        let error = try loadError("")
        #expect(error.description == "providers.yaml:1:1: missing required key \"providers\"\n\n^")
        let empty = try loadError("providers: {}\n")
        #expect(
            empty.issues.map(\.message)
                == ["expected a mapping of provider names to settings for providers, found an empty mapping"])
    }

    @Test func reportsUnresolvedVariable() throws {
        let error = try loadError(minimalProviders + "    client_secret: ${GOOGLE_CLIENT_SECRET}\n")
        #expect(error.issues.map(\.code) == [.undefinedVariable])
        #expect(
            error.description == """
                providers.yaml:5:20: environment variable GOOGLE_CLIENT_SECRET is not set (needed by providers.google.client_secret)
                    client_secret: ${GOOGLE_CLIENT_SECRET}
                                   ^
                """)
    }

    @Test func reportsMalformedVariableReference() throws {
        let error = try loadError(minimalProviders + "    issuer: \"${ISSUER\"\n")
        #expect(
            error.issues.map(\.message)
                == ["unterminated ${ (write $${ for a literal ${) in providers.google.issuer"])
        let badName = try loadError(minimalProviders + "    issuer: \"${1X}\"\n")
        #expect(
            badName.issues.map(\.message)
                == [
                    "invalid environment variable name \"1X\" in ${…}; names are letters, digits and _ in providers.google.issuer"
                ])
    }

    @Test func usesDefaultsOfVariables() throws {
        let yaml = """
            server:
              public_url: ${PUBLIC_URL:-http://localhost:8080}
              secret: ${SECRET:-0123456789abcdef0123456789abcdef}
              session_ttl: ${TTL:-30m}
              signup: ${SIGNUP:-false}
            providers:
              google:
                client_id: "${CLIENT_ID:-abc}-$${literal}-$5"
            """
        let configuration = try makeLoader(environment: ["CLIENT_ID": ""]).load(yaml: yaml, fileName: "p.yaml")
        #expect(configuration.server?.publicURL == "http://localhost:8080")
        #expect(configuration.server?.secret?.value == "0123456789abcdef0123456789abcdef")
        #expect(configuration.server?.sessionTTL == 1800)
        #expect(configuration.server?.signup == false)
        #expect(configuration.providers.first?.clientID == "abc-${literal}-$5")
        let set = try makeLoader(environment: ["TTL": "2h", "SIGNUP": "true", "CLIENT_ID": "real"])
            .load(yaml: yaml, fileName: "p.yaml")
        #expect(set.server?.sessionTTL == 7200)
        #expect(set.server?.signup == true)
        #expect(set.providers.first?.clientID == "real-${literal}-$5")
    }

    @Test func reportsMissingFile() throws {
        let error = try loadError(minimalProviders + "    client_secret_file: /run/secrets/google\n")
        #expect(error.issues.map(\.code) == [.unreadableFile])
        #expect(
            error.description == """
                providers.yaml:5:25: cannot read providers.google.client_secret_file "/run/secrets/google": no such file
                    client_secret_file: <redacted>
                                        ^
                """)
    }

    @Test func readsFilesFromDiskWithAReason() throws {
        let loader = ConfigurationLoader(environment: [:])
        let error = try #require(throws: ConfigurationError.self) {
            _ = try loader.load(
                yaml: minimalProviders + "    private_key_file: /nonexistent/authflow/key.p8\n", fileName: "p.yaml")
        }
        #expect(
            error.issues.map(\.message)
                == ["cannot read providers.google.private_key_file \"/nonexistent/authflow/key.p8\": no such file"])
        let missingConfig = try #require(throws: ConfigurationError.self) {
            _ = try loader.load(path: "/nonexistent/authflow/providers.yaml")
        }
        #expect(
            missingConfig.description
                == "cannot read configuration file \"/nonexistent/authflow/providers.yaml\": no such file")
    }

    @Test func namesALongConfigurationPathInFull() throws {
        let path = "/nonexistent/" + String(repeating: "deeply-nested-directory/", count: 8) + "providers.yaml"
        let error = try #require(throws: ConfigurationError.self) {
            _ = try ConfigurationLoader(environment: [:]).load(path: path)
        }
        #expect(error.description == "cannot read configuration file \"\(path)\": no such file")
    }

    @Test func summarisesFailuresOfCustomReaders() throws {
        struct Opaque: Error {}
        let loader = ConfigurationLoader(environment: [:]) { _ in throw Opaque() }
        let error = try #require(throws: ConfigurationError.self) {
            _ = try loader.load(yaml: minimalProviders + "    client_secret_file: s\n", fileName: "p.yaml")
        }
        #expect(error.issues.map(\.message) == ["cannot read providers.google.client_secret_file \"s\": read failed"])
    }

    @Test func refusesAnEmptySecretFile() throws {
        let error = try loadError(minimalProviders + "    client_secret_file: s\n", files: ["s": " \n"])
        #expect(error.issues.map(\.message) == ["providers.google.client_secret_file \"s\" is empty"])
        #expect(error.issues.map(\.code) == [.unreadableFile])
    }

    @Test func refusesAKeyFileThatIsNotPEM() throws {
        let error = try loadError(
            minimalProviders + "    private_key_file: key.p8\n", files: ["key.p8": "hunter2-not-a-key"])
        #expect(
            error.issues.map(\.message)
                == [
                    "providers.google.private_key_file \"key.p8\" does not hold a PEM private key (expected -----BEGIN PRIVATE KEY-----)"
                ])
        #expect(!error.description.contains("hunter2"))
    }

    @Test func refusesBothSecretAndSecretFile() throws {
        let error = try loadError(
            minimalProviders + "    client_secret: a\n    client_secret_file: f\n", files: ["f": "b"])
        #expect(error.issues.map(\.code) == [.conflictingKeys])
        #expect(error.issues.first?.location?.line == 6)
        #expect(
            error.issues.first?.message
                == "use either client_secret or client_secret_file in providers.google, not both")
    }

    @Test func refusesNonHTTPSEndpoint() throws {
        let error = try loadError(minimalProviders + "    endpoints:\n      token: http://idp.example.com/token\n")
        #expect(error.issues.map(\.code) == [.insecureURL])
        #expect(
            error.description == """
                providers.yaml:6:14: expected an https:// URL for providers.google.endpoints.token (http:// is allowed only on localhost, 127.0.0.0/8 and [::1]), found "http://idp.example.com/token"
                      token: http://idp.example.com/token
                             ^
                """)
    }

    @Test func readsAuthorizationParameters() throws {
        let yaml =
            minimalProviders
            + "    authorization_params:\n      access_type: offline\n      prompt: ${PROMPT:-consent}\n      hd: example.com\n"
        let configuration = try makeLoader().load(yaml: yaml, fileName: "p.yaml")
        let provider = try #require(configuration.providers.first)
        #expect(
            provider.authorizationParameters == ["access_type": "offline", "prompt": "consent", "hd": "example.com"])
        #expect(provider.location(of: "authorization_params.prompt").line == 7)
        let none = try makeLoader().load(yaml: minimalProviders, fileName: "p.yaml")
        #expect(none.providers.first?.authorizationParameters == [:])
    }

    @Test func refusesAuthorizationParametersAuthFlowSetsItself() throws {
        let reserved = [
            "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
            "code_challenge_method", "response_mode", "request", "request_uri",
        ]
        for name in reserved {
            let error = try loadError(
                minimalProviders + "    authorization_params: { \(name): x, access_type: offline }\n")
            #expect(error.issues.map(\.code) == [.invalidValue], "\(name) must be refused")
            #expect(
                error.issues.first?.message.hasPrefix(
                    "providers.google.authorization_params may not set \(name): AuthFlow sets it from ") == true)
            #expect(error.issues.first?.location?.line == 5)
        }
        let state = try loadError(minimalProviders + "    authorization_params:\n      state: fixed\n")
        #expect(
            state.description == """
                providers.yaml:6:7: providers.google.authorization_params may not set state: AuthFlow sets it from a fresh value per sign-in
                      state: fixed
                      ^
                """)
    }

    @Test func refusesMalformedAuthorizationParameters() throws {
        let list = try loadError(minimalProviders + "    authorization_params: [access_type, offline]\n")
        #expect(list.issues.map(\.code) == [.wrongType])
        #expect(list.issues.first?.message.contains("expected a mapping of parameter names to values") == true)
        let badName = try loadError(minimalProviders + "    authorization_params: { \"a b\": x }\n")
        #expect(badName.issues.map(\.code) == [.invalidValue])
        #expect(badName.issues.first?.message.contains("may use only letters, digits") == true)
        let empty = try loadError(minimalProviders + "    authorization_params: { access_type: \"\" }\n")
        #expect(empty.issues.map(\.code) == [.invalidValue])
        let nested = try loadError(minimalProviders + "    authorization_params: { prompt: [consent] }\n")
        #expect(nested.issues.map(\.code) == [.wrongType])
        let typo = try loadError(minimalProviders + "    authorization_param: { access_type: offline }\n")
        #expect(typo.issues.first?.message.contains("authorization_params") == true)
    }

    @Test func allowsHTTPOnlyOnLoopbackHosts() throws {
        for url in ["http://localhost:1/t", "http://127.9.8.7/t", "http://[::1]:8/t", "https://idp.example.com/t"] {
            let yaml = minimalProviders + "    endpoints: { token: \"\(url)\" }\n"
            let configuration = try makeLoader().load(yaml: yaml, fileName: "p.yaml")
            #expect(configuration.providers.first?.endpoints.token == url)
        }
        for url in [
            "http://127.0.0.1.evil.example/t", "http://localhost.evil.example/t", "http://128.0.0.1/t",
            "ftp://localhost/t",
            "http://[::2]/t", "idp.example.com/token", "http://127.0.0.256/t",
        ] {
            let yaml = minimalProviders + "    endpoints: { token: \"\(url)\" }\n"
            let error = try loadError(yaml)
            #expect(error.issues.count == 1, "\(url) must be refused")
        }
    }

    @Test func refusesCredentialsInURLsWithoutEchoingThem() throws {
        let error = try loadError(minimalProviders + "    issuer: https://user:pa55word@idp.example.com\n")
        #expect(error.issues.map(\.message) == ["the URL of providers.google.issuer must not contain user:password@"])
    }

    @Test func refusesShortSecret() throws {
        let error = try loadError(
            "server:\n  public_url: http://localhost:8080\n  secret: tooshort\n" + minimalProviders)
        #expect(error.issues.map(\.code) == [.weakSecret])
        #expect(
            error.description == """
                providers.yaml:3:11: server.secret must be at least 32 bytes, found 8 bytes (generate one with: openssl rand -hex 32)
                  secret: <redacted>
                          ^
                """)
    }

    @Test func refusesBadDuration() throws {
        let error = try loadError(
            "server:\n  public_url: http://localhost:8080\n  secret: \(String(repeating: "x", count: 32))\n"
                + "  session_ttl: 8 hours\n" + minimalProviders)
        #expect(error.issues.map(\.code) == [.invalidDuration])
        #expect(
            error.description == """
                providers.yaml:4:16: expected a duration like 8h, 30m, 90s or 1h30m (at most 400d) for server.session_ttl, found "8 hours"
                  session_ttl: 8 hours
                               ^
                """)
        for bad in ["3600", "0s", "30m8h", "h", "1.5h", "500d"] {
            let yaml =
                "server:\n  public_url: http://localhost:8080\n  secret: \(String(repeating: "x", count: 32))\n"
                + "  session_ttl: \"\(bad)\"\n" + minimalProviders
            #expect(try loadError(yaml).issues.map(\.code) == [.invalidDuration], "\(bad) must be refused")
        }
    }

    @Test func refusesUnknownStoreKindsAndRedisURLsOfAnotherScheme() throws {
        let redis = try loadError("store:\n  kind: redis\n" + minimalProviders)
        #expect(redis.issues.map(\.code) == [.invalidValue])
        #expect(
            redis.issues.first?.message
                == "expected memory, sqlite or postgres for store.kind, found \"redis\" (Redis holds sessions next to a "
                + "database, it is not a store kind)")
        let unknown = try loadError("store:\n  kind: mongo\n" + minimalProviders)
        #expect(
            unknown.issues.map(\.message) == ["expected memory, sqlite or postgres for store.kind, found \"mongo\""])
        let redisURL = try loadError(
            "store:\n  kind: postgres\n  postgres_url: postgresql://db.internal/authflow\n"
                + "  redis_url: memcache://:hunter2@cache.internal\n" + minimalProviders)
        #expect(redisURL.issues.map(\.code) == [.invalidValue])
        #expect(redisURL.issues.first?.location?.line == 4)
        #expect(
            redisURL.issues.first?.message
                == "expected a redis:// or unix:// URL for store.redis_url, found a URL with scheme \"memcache\"")
        #expect(!redisURL.description.contains("hunter2"))
    }

    @Test func readsAPostgresStoreWithItsURLFromTheEnvironment() throws {
        let configuration = try makeLoader(
            environment: ["DATABASE_URL": "postgresql://authflow:pw@db.internal:5432/authflow?sslmode=require"]
        ).load(
            yaml: "store:\n  kind: postgres\n  postgres_url: ${DATABASE_URL}\n" + minimalProviders, fileName: "p.yaml")
        #expect(configuration.store.kind == .postgres)
        #expect(configuration.store.postgresURL == "postgresql://authflow:pw@db.internal:5432/authflow?sslmode=require")
        #expect(!configuration.store.description.contains("pw"))
        #expect(configuration.store.redisURL == nil && configuration.store.redisPrefix == "authflow:")
        let withRedis = try makeLoader(environment: ["REDIS_URL": "redis://:pw2@cache.internal:6379/1"]).load(
            yaml: "store:\n  kind: postgres\n  postgres_url: postgresql://db/a\n  redis_url: ${REDIS_URL}\n"
                + "  redis_prefix: \"app1:\"\n" + minimalProviders, fileName: "p.yaml")
        #expect(withRedis.store.redisURL == "redis://:pw2@cache.internal:6379/1")
        #expect(withRedis.store.redisPrefix == "app1:")
        #expect(!withRedis.store.description.contains("pw2"))
        let conninfo = try makeLoader().load(
            yaml: "store:\n  kind: postgres\n  postgres_url: \"host=/run/postgresql dbname=authflow\"\n"
                + minimalProviders, fileName: "p.yaml")
        #expect(conninfo.store.postgresURL == "host=/run/postgresql dbname=authflow")
    }

    @Test func refusesAPostgresStoreWithoutAURLOrWithAnUnknownScheme() throws {
        let missing = try loadError("store:\n  kind: postgres\n" + minimalProviders)
        #expect(missing.issues.map(\.code) == [.missingKey])
        #expect(missing.issues.first?.location?.line == 2 && missing.issues.first?.location?.column == 9)
        #expect(
            missing.issues.first?.message
                == "missing required key \"postgres_url\" in store (store.kind postgres needs a libpq URL, usually "
                + "${DATABASE_URL})")
        let scheme = try loadError(
            "store:\n  kind: postgres\n  postgres_url: mysql://root:hunter2@db/authflow\n" + minimalProviders)
        #expect(scheme.issues.map(\.code) == [.invalidValue])
        #expect(scheme.issues.first?.location?.line == 3)
        #expect(
            scheme.issues.first?.message
                == "expected a postgresql:// or postgres:// URL or a key=value conninfo for store.postgres_url, found "
                + "a URL with scheme \"mysql\"")
        // The URL may carry a password: neither the message nor the quoted source line shows it.
        #expect(!scheme.description.contains("hunter2"))
    }

    @Test func refusesProviderNamesThatAreNotURLSafe() throws {
        let error = try loadError("providers:\n  Google Work:\n    client_id: a\n  ok_name-2:\n    client_id: b\n")
        #expect(error.issues.map(\.code) == [.invalidProviderName])
        #expect(
            error.description == """
                providers.yaml:2:3: provider name "Google Work" may use only a-z, 0-9, _ and - (it is part of URLs)
                  Google Work:
                  ^
                """)
    }

    @Test func refusesBadListenAndReturnTargets() throws {
        let yaml = """
            server:
              listen: 8080
              public_url: http://localhost:8080
              secret: 0123456789abcdef0123456789abcdef
              allowed_return_to: [/, //evil.example, "/\\\\evil", "http://evil.example", "https://ok.example"]
            sandbox:
              listen: localhost:70000
            """ + "\n" + minimalProviders
        let error = try loadError(yaml)
        #expect(
            error.issues.map(\.message) == [
                "expected host:port for server.listen (e.g. 127.0.0.1:8080), found 8080",
                "expected a path prefix starting with \"/\" or an origin like https://app.example.com in server.allowed_return_to, found \"//evil.example\"",
                "expected a path prefix starting with \"/\" or an origin like https://app.example.com in server.allowed_return_to, found \"/\\\\evil\"",
                "expected a path prefix starting with \"/\" or an origin like https://app.example.com in server.allowed_return_to, found \"http://evil.example\"",
                "expected host:port for sandbox.listen (e.g. 127.0.0.1:8080), found \"localhost:70000\"",
            ])
    }

    @Test func readsAndChecksSandboxMicrosoftTenants() throws {
        let good = try makeLoader().load(
            yaml: minimalProviders + "sandbox:\n  microsoft_tenants: [5F0C7D3E-1A2B-4C3D-8E9F-001122334455]\n",
            fileName: "p.yaml")
        #expect(good.sandbox?.microsoftTenants == ["5f0c7d3e-1a2b-4c3d-8e9f-001122334455"])
        let error = try loadError(
            minimalProviders + "sandbox:\n  microsoft_tenants: [contoso, 9188040d-6c67-4c5b-b112-36a304b66dad, "
                + "5f0c7d3e-1a2b-4c3d-8e9f-001122334455, 5f0c7d3e-1a2b-4c3d-8e9f-001122334455]\n")
        #expect(
            error.issues.map(\.message) == [
                "expected a tenant GUID (8-4-4-4-12 hexadecimal digits) in sandbox.microsoft_tenants, found \"contoso\"",
                "sandbox.microsoft_tenants lists the personal-accounts tenant 9188040d-6c67-4c5b-b112-36a304b66dad, "
                    + "which is always known",
                "sandbox.microsoft_tenants lists \"5f0c7d3e-1a2b-4c3d-8e9f-001122334455\" twice",
            ])
        #expect(error.issues.allSatisfy { $0.code == .invalidValue && $0.location != nil })
    }

    @Test func readsTheSandboxFAPI2SwitchAndTheDPoPAndProfileKeys() throws {
        let on = try makeLoader().load(yaml: minimalProviders + "sandbox:\n  fapi2: true\n", fileName: "p.yaml")
        #expect(on.sandbox?.fapi2 == true)
        let off = try makeLoader().load(
            yaml: minimalProviders + "sandbox:\n  listen: 127.0.0.1:0\n", fileName: "p.yaml")
        #expect(off.sandbox?.fapi2 == false)
        let wrong = try loadError(minimalProviders + "sandbox:\n  fapi2: sometimes\n")
        #expect(wrong.issues.first?.message.contains("sandbox.fapi2") == true)
        let keys = try makeLoader().load(
            yaml: minimalProviders + "    dpop: true\n    profile: none\n", fileName: "p.yaml")
        #expect(keys.providers.first?.dpop == .on && keys.providers.first?.profile == ProviderProfile.none)
        let badDPoP = try loadError(minimalProviders + "    dpop: always\n")
        #expect(
            badDPoP.issues.first?.message.contains("expected one of auto, true, false for providers.google.dpop")
                == true)
        let badProfile = try loadError(minimalProviders + "    profile: fapi1\n")
        #expect(badProfile.issues.first?.message.contains("none, fapi2") == true)
    }

    @Test func refusesScopesWithSpaces() throws {
        let error = try loadError(minimalProviders + "    scopes: [\"openid email\"]\n")
        #expect(
            error.issues.map(\.message)
                == ["scope \"openid email\" in providers.google.scopes contains a space; list each scope separately"])
        #expect(error.issues.first?.location?.column == 14)
    }

    @Test func reportsSeveralErrorsTogether() throws {
        let yaml = """
            server:
              public_url: http://app.example.com
              secret: short
              session_ttl: forever
            store:
              kind: postgres
            providers:
              google:
                type: google
                clinet_id: abc
                client_secret: ${GOOGLE_CLIENT_SECRET}
                capabilities: { pkce: maybe, odic: true }
              facebook:
                client_id: "1"
                endpoints: { token: "http://graph.example.com/token" }
            """
        let error = try loadError(yaml)
        #expect(
            error.issues.map(\.code) == [
                .insecureURL, .weakSecret, .invalidDuration, .missingKey, .missingKey, .unknownKey,
                .undefinedVariable, .wrongType, .unknownKey, .insecureURL,
            ])
        #expect(
            error.description == """
                providers.yaml:2:15: expected an https:// URL for server.public_url (http:// is allowed only on localhost, 127.0.0.0/8 and [::1]), found "http://app.example.com"
                  public_url: http://app.example.com
                              ^
                providers.yaml:3:11: server.secret must be at least 32 bytes, found 5 bytes (generate one with: openssl rand -hex 32)
                  secret: <redacted>
                          ^
                providers.yaml:4:16: expected a duration like 8h, 30m, 90s or 1h30m (at most 400d) for server.session_ttl, found "forever"
                  session_ttl: forever
                               ^
                providers.yaml:6:9: missing required key "postgres_url" in store (store.kind postgres needs a libpq URL, usually ${DATABASE_URL})
                  kind: postgres
                        ^
                providers.yaml:8:3: missing required key "client_id" in providers.google
                  google:
                  ^
                providers.yaml:10:5: unknown key "clinet_id" in providers.google; did you mean "client_id"?
                    clinet_id: abc
                    ^
                providers.yaml:11:20: environment variable GOOGLE_CLIENT_SECRET is not set (needed by providers.google.client_secret)
                    client_secret: ${GOOGLE_CLIENT_SECRET}
                                   ^
                providers.yaml:12:27: expected a boolean (true or false) for providers.google.capabilities.pkce, found "maybe"
                    capabilities: { pkce: maybe, odic: true }
                                          ^
                providers.yaml:12:34: unknown key "odic" in providers.google.capabilities; did you mean "oidc"?
                    capabilities: { pkce: maybe, odic: true }
                                                 ^
                providers.yaml:15:25: expected an https:// URL for providers.facebook.endpoints.token (http:// is allowed only on localhost, 127.0.0.0/8 and [::1]), found "http://graph.example.com/token"
                    endpoints: { token: "http://graph.example.com/token" }
                                        ^
                """)
    }

    @Test func reportsManyIssuesOnOneLongLineCompactly() throws {
        let keys = (0..<2000).map { "k\($0): 1" }.joined(separator: ", ")
        let error = try loadError("providers:\n  google: {client_id: a, \(keys)}\n")
        #expect(error.issues.count == 2000)
        #expect(error.issues.allSatisfy { $0.code == .unknownKey })
        let lastLines = error.issues.last?.description.split(separator: "\n") ?? []
        #expect(lastLines.count == 3)
        #expect(lastLines.dropFirst().allSatisfy { $0.count <= 162 })
    }

    @Test func refusesAliasBomb() throws {
        var yaml = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        var previous = "a"
        for name in ["b", "c", "d", "e", "f"] {
            yaml += "\(name): &\(name) [" + Array(repeating: "*\(previous)", count: 10).joined(separator: ", ") + "]\n"
            previous = name
        }
        let error = try loadError(yaml)
        #expect(error.issues.map(\.code) == [.invalidYAML])
        #expect(
            error.issues.first?.message
                == "document expands to more than 10000 nodes (aliases included); refusing to expand it")
    }

    @Test func refusesOversizeDocument() throws {
        let error = try loadError(minimalProviders + "# " + String(repeating: "x", count: 1 << 20) + "\n")
        #expect(error.issues.map(\.code) == [.invalidYAML])
        #expect(error.description == "providers.yaml: document is 1048636 bytes; the limit is 1048576 bytes")
    }

    @Test func refusesMultipleDocuments() throws {
        let error = try loadError(minimalProviders + "---\n" + minimalProviders)
        #expect(
            error.description == """
                providers.yaml:5:1: expected a single YAML document, found a second one
                ---
                ^
                """)
    }

    @Test func sandboxModeForgivesOnlyMissingCredentials() throws {
        let yaml = """
            server:
              public_url: http://localhost:8080
              secret: ${AUTHFLOW_SECRET}
            providers:
              apple:
                client_id: com.example.web
                team_id: ${APPLE_TEAM_ID}
                key_id: ${APPLE_KEY_ID}
                private_key_file: ${APPLE_PRIVATE_KEY_FILE}
              facebook:
                client_id: "1"
                client_secret_file: /run/secrets/facebook
              google:
                client_id: abc
                client_secret: ${GOOGLE_CLIENT_SECRET}
            """
        let configuration = try makeLoader(mode: .sandbox).load(yaml: yaml, fileName: "p.yaml")
        #expect(configuration.server?.secret == nil)
        let apple = try #require(configuration.provider(named: "apple"))
        #expect(apple.teamID == nil && apple.keyID == nil && apple.privateKey == nil)
        #expect(configuration.provider(named: "facebook")?.clientSecret == nil)
        #expect(configuration.provider(named: "google")?.clientSecret == nil)

        let normal = try loadError(yaml)
        #expect(normal.issues.count == 6)

        let stillStrict = try loadError(
            yaml + "\n    issuer: ${GOOGLE_ISSUER}\n    capabilities: { pkce: maybe }\n", mode: .sandbox)
        #expect(
            stillStrict.issues.map(\.message) == [
                "environment variable GOOGLE_ISSUER is not set (needed by providers.google.issuer)",
                "expected a boolean (true or false) for providers.google.capabilities.pkce, found \"maybe\"",
            ])
        let shortSecret = try loadError(
            "server:\n  public_url: http://localhost:8080\n  secret: short\n" + minimalProviders, mode: .sandbox)
        #expect(shortSecret.issues.map(\.code) == [.weakSecret])
    }

    @Test func coreCanReportIssuesTheSameWay() throws {
        let configuration = try makeLoader().load(yaml: minimalProviders, fileName: "providers.yaml")
        let google = try #require(configuration.providers.first)
        let issue = ConfigurationIssue(
            code: .unknownProviderType,
            message: "unknown provider type \"google\"", location: google.typeLocation)
        #expect(
            ConfigurationError(issues: [issue]).description == """
                providers.yaml:3:11: unknown provider type "google"
                    type: google
                          ^
                """)
    }
}
