// swift-tools-version: 6.0
import PackageDescription

/// Every Swift target is built in the Swift 6 language mode with the same strictness.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "AuthFlow",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AuthFlowJSON", targets: ["AuthFlowJSON"]),
        .library(name: "AuthFlowJOSE", targets: ["AuthFlowJOSE"]),
        .library(name: "AuthFlowHTTP", targets: ["AuthFlowHTTP"]),
        .library(name: "AuthFlowCurl", targets: ["AuthFlowCurl"]),
        .library(name: "AuthFlowHTTPServer", targets: ["AuthFlowHTTPServer"]),
        .library(name: "AuthFlowStores", targets: ["AuthFlowStores"]),
        .library(name: "AuthFlow", targets: ["AuthFlow"]),
        .library(name: "AuthFlowApple", targets: ["AuthFlowApple"]),
        .library(name: "AuthFlowGoogle", targets: ["AuthFlowGoogle"]),
        .library(name: "AuthFlowFacebook", targets: ["AuthFlowFacebook"]),
        .library(name: "AuthFlowX", targets: ["AuthFlowX"]),
        .library(name: "AuthFlowOIDC", targets: ["AuthFlowOIDC"]),
        .library(name: "AuthFlowOAuth2", targets: ["AuthFlowOAuth2"]),
        .library(name: "AuthFlowMicrosoft", targets: ["AuthFlowMicrosoft"]),
        .library(name: "AuthFlowGitHub", targets: ["AuthFlowGitHub"]),
        .library(name: "AuthFlowGitLab", targets: ["AuthFlowGitLab"]),
        .library(name: "AuthFlowLinkedIn", targets: ["AuthFlowLinkedIn"]),
        .library(name: "AuthFlowSlack", targets: ["AuthFlowSlack"]),
        .library(name: "AuthFlowDiscord", targets: ["AuthFlowDiscord"]),
        .library(name: "AuthFlowProviders", targets: ["AuthFlowProviders"]),
        .library(name: "AuthFlowSandbox", targets: ["AuthFlowSandbox"]),
        .library(name: "AuthFlowSQLite", targets: ["AuthFlowSQLite"]),
        .library(name: "AuthFlowPostgres", targets: ["AuthFlowPostgres"]),
        .library(name: "AuthFlowRedis", targets: ["AuthFlowRedis"]),
        .library(name: "AuthFlowMatrix", targets: ["AuthFlowMatrix"]),
        .library(name: "AuthFlowServer", targets: ["AuthFlowServer"]),
        .library(name: "AuthFlowDeployment", targets: ["AuthFlowDeployment"]),
        .library(name: "AuthFlowDemo", targets: ["AuthFlowDemo"]),
        .executable(name: "authflow", targets: ["authflow"]),
        .plugin(name: "CapabilityMatrix", targets: ["CapabilityMatrix"]),
    ],
    targets: [
        // C libraries from Debian, wrapped as system-library targets.
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CPostgres", path: "Sources/CPostgres", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        // No pkgConfig: hiredis.pc adds -D_FILE_OFFSET_BITS=64, which SwiftPM refuses (see its module map).
        .systemLibrary(name: "CHiredis", path: "Sources/CHiredis", providers: [.apt(["libhiredis-dev"])]),

        // Foundation layer: JOSE (keys, JWS/JWT, clocks, randomness), YAML, the HTTP values and client protocol
        // (no C: what the core and the plugins speak), the HTTP client on libcurl, the HTTP server on libmicrohttpd.
        .target(name: "AuthFlowJSON", swiftSettings: strict),
        .target(name: "AuthFlowJOSE", dependencies: ["AuthFlowJSON", "COpenSSL"], swiftSettings: strict),
        .target(name: "AuthFlowYAML", dependencies: ["AuthFlowJSON", "CYAML"], swiftSettings: strict),
        // WebAuthn relying-party checks (passkeys): options, responses, authenticator data, attestation,
        // the ceremonies' verification. CBOR and COSE keys are JOSE's. Package access only.
        .target(name: "AuthFlowWebAuthn", dependencies: ["AuthFlowJSON", "AuthFlowJOSE"], swiftSettings: strict),
        .target(name: "AuthFlowHTTP", dependencies: ["AuthFlowJSON"], swiftSettings: strict),
        .target(name: "AuthFlowCurl", dependencies: ["AuthFlowHTTP", "CCurl"], swiftSettings: strict),
        .target(name: "AuthFlowHTTPServer", dependencies: ["AuthFlowHTTP", "CMicroHTTPD"], swiftSettings: strict),

        // The storage contract: the store protocols, their records and errors, and the in-memory stores. What a
        // store author depends on; knows nothing of the sign-in flow. Reaches neither libcurl nor libmicrohttpd.
        .target(
            name: "AuthFlowStores", dependencies: ["AuthFlowJSON", "AuthFlowJOSE", "AuthFlowHTTP"],
            swiftSettings: strict),

        // Core: the OAuth flow, the plugin protocol, configuration. Re-exports AuthFlowJOSE, AuthFlowHTTP and
        // AuthFlowStores. Reaches neither libcurl nor libmicrohttpd.
        .target(
            name: "AuthFlow", dependencies: ["AuthFlowJOSE", "AuthFlowYAML", "AuthFlowHTTP", "AuthFlowStores"],
            swiftSettings: strict),

        // Provider plugins (above the core; they never import each other) and the umbrella holding
        // `ProviderRegistry.standard`, which re-exports the core and every plugin.
        .target(
            name: "AuthFlowApple", dependencies: ["AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP"],
            swiftSettings: strict),
        .target(
            name: "AuthFlowGoogle", dependencies: ["AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP"],
            swiftSettings: strict),
        .target(
            name: "AuthFlowFacebook", dependencies: ["AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP"],
            swiftSettings: strict),
        .target(
            name: "AuthFlowX", dependencies: ["AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP"],
            swiftSettings: strict),
        .target(
            name: "AuthFlowOIDC", dependencies: ["AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP"],
            swiftSettings: strict),
        .target(name: "AuthFlowOAuth2", dependencies: ["AuthFlow", "AuthFlowJOSE"], swiftSettings: strict),
        .target(
            name: "AuthFlowMicrosoft", dependencies: ["AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP"],
            swiftSettings: strict),
        .target(
            name: "AuthFlowGitHub", dependencies: ["AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP"], swiftSettings: strict),
        .target(name: "AuthFlowGitLab", dependencies: ["AuthFlow", "AuthFlowJOSE"], swiftSettings: strict),
        .target(name: "AuthFlowLinkedIn", dependencies: ["AuthFlow", "AuthFlowJOSE"], swiftSettings: strict),
        .target(name: "AuthFlowSlack", dependencies: ["AuthFlow", "AuthFlowJOSE"], swiftSettings: strict),
        .target(name: "AuthFlowDiscord", dependencies: ["AuthFlow", "AuthFlowJOSE"], swiftSettings: strict),
        // Passkeys (`type: passkey`): the provider's description and relying-party settings; the server answers its
        // ceremonies. Package access only.
        .target(name: "AuthFlowPasskeys", dependencies: ["AuthFlow"], swiftSettings: strict),
        .target(
            name: "AuthFlowProviders",
            dependencies: [
                "AuthFlow", "AuthFlowApple", "AuthFlowGoogle", "AuthFlowFacebook", "AuthFlowX", "AuthFlowOIDC",
                "AuthFlowOAuth2", "AuthFlowMicrosoft", "AuthFlowGitHub", "AuthFlowGitLab", "AuthFlowLinkedIn",
                "AuthFlowSlack", "AuthFlowDiscord", "AuthFlowPasskeys",
            ],
            swiftSettings: strict),

        // The sandbox identity provider: emulators of the providers, a stand-in for the outside world, so it does
        // not depend on the core.
        .target(
            name: "AuthFlowSandbox",
            dependencies: ["AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowCurl", "AuthFlowHTTPServer"],
            swiftSettings: strict),

        // Store backends (SQLite, PostgreSQL, Redis) for the store protocols of AuthFlowStores; they do not depend
        // on the core, so a change to the sign-in flow does not rebuild them. The SQL account and session stores
        // are written once (AuthFlowSQL, package access only); SQLite and PostgreSQL supply a connection and a
        // dialect.
        .target(name: "AuthFlowSQL", dependencies: ["AuthFlowStores", "AuthFlowJOSE"], swiftSettings: strict),
        .target(
            name: "AuthFlowSQLite",
            dependencies: ["AuthFlowStores", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowSQL", "CSQLite"],
            swiftSettings: strict),
        .target(
            name: "AuthFlowPostgres",
            dependencies: ["AuthFlowStores", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowSQL", "CPostgres"],
            swiftSettings: strict),
        .target(
            name: "AuthFlowRedis", dependencies: ["AuthFlowStores", "AuthFlowJOSE", "AuthFlowHTTP", "CHiredis"],
            swiftSettings: strict),
        // The capability matrix report (`authflow matrix`, the demo's /matrix page).
        .target(name: "AuthFlowMatrix", dependencies: ["AuthFlow", "AuthFlowJOSE"], swiftSettings: strict),

        // The lean sign-in server an app embeds: routes, cookies, sessions, provider notifications. Knows no
        // provider, store backend, sandbox or matrix. Re-exports AuthFlow, and the curl client and the HTTP server
        // it runs on.
        .target(
            name: "AuthFlowServer",
            dependencies: [
                "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowYAML", "AuthFlowCurl", "AuthFlowHTTPServer",
                "AuthFlowWebAuthn",
            ],
            swiftSettings: strict),

        // Assembly of what `authflow serve` runs: stores by `store.kind`, provider resolution with discovery.
        // Re-exports AuthFlowServer, AuthFlowProviders and the store backends. Links no sandbox, matrix or demo.
        .target(
            name: "AuthFlowDeployment",
            dependencies: [
                "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowYAML", "AuthFlowCurl", "AuthFlowHTTPServer",
                "AuthFlowServer", "AuthFlowProviders", "AuthFlowSQLite", "AuthFlowPostgres", "AuthFlowRedis",
            ],
            swiftSettings: strict),
        // Sandbox mode (`serve --sandbox`, `demo`: the sandbox in-process, the configuration pointed at it, a
        // throwaway store) and the demo pages. What a production app does not link.
        .target(
            name: "AuthFlowDemo",
            dependencies: [
                "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowCurl", "AuthFlowServer", "AuthFlowDeployment",
                "AuthFlowSandbox", "AuthFlowMatrix",
            ],
            swiftSettings: strict),

        // Command-line tool, and the command plugin that runs it (`swift package capability-matrix`).
        .executableTarget(
            name: "authflow",
            dependencies: [
                "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowCurl", "AuthFlowHTTPServer", "AuthFlowProviders",
                "AuthFlowOIDC", "AuthFlowSandbox", "AuthFlowMatrix", "AuthFlowServer", "AuthFlowDeployment",
                "AuthFlowDemo", "AuthFlowPostgres", "AuthFlowRedis",
            ],
            swiftSettings: strict),
        .plugin(
            name: "CapabilityMatrix",
            capability: .command(
                intent: .custom(
                    verb: "capability-matrix",
                    description: "Print the capability matrix of providers.yaml (authflow matrix)")),
            dependencies: ["authflow"]),

        // Test support only: child processes started with posix_spawn (not Foundation's Process).
        .target(name: "CChildProcess", path: "Tests/Support/CChildProcess"),
        .target(
            name: "AuthFlowTestSupport", dependencies: ["CChildProcess", "AuthFlowJOSE"],
            path: "Tests/Support/AuthFlowTestSupport",
            swiftSettings: strict),
        .testTarget(name: "AuthFlowTestSupportTests", dependencies: ["AuthFlowTestSupport"], swiftSettings: strict),
        // A minimal cookie-keeping browser and form reader, for the server's and the demo's tests.
        .target(
            name: "AuthFlowBrowserTestSupport", dependencies: ["AuthFlowCurl", "AuthFlowHTTP"],
            path: "Tests/Support/AuthFlowBrowserTestSupport", swiftSettings: strict),

        .testTarget(name: "AuthFlowJSONTests", dependencies: ["AuthFlowJSON"], swiftSettings: strict),
        .testTarget(
            name: "AuthFlowWebAuthnTests", dependencies: ["AuthFlowWebAuthn", "AuthFlowJOSE", "AuthFlowTestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "AuthFlowJOSETests", dependencies: ["AuthFlowJOSE", "AuthFlowTestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        // The stores' shared harness: every backend's stores on fresh databases, for the store test targets, and an
        // account store that counts the calls it forwards (the core's and the server's tests).
        .target(
            name: "AuthFlowStoreTestSupport",
            dependencies: [
                "AuthFlowStores", "AuthFlowJOSE", "AuthFlowSQL", "AuthFlowSQLite", "AuthFlowPostgres", "AuthFlowRedis",
            ],
            path: "Tests/Support/AuthFlowStoreTestSupport", swiftSettings: strict),
        // The store conformance suites: the SQL stores (on SQLite and PostgreSQL) beside the in-memory and Redis
        // stores, one suite per protocol.
        .testTarget(
            name: "AuthFlowSQLTests",
            dependencies: [
                "AuthFlowSQL", "AuthFlowSQLite", "AuthFlowPostgres", "AuthFlowRedis", "AuthFlowStores", "AuthFlowJOSE",
                "AuthFlowStoreTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowSQLiteTests",
            dependencies: [
                "AuthFlowSQLite", "AuthFlowSQL", "AuthFlowStores", "AuthFlowJOSE", "AuthFlowStoreTestSupport",
                "AuthFlowTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowPostgresTests",
            dependencies: [
                "AuthFlowPostgres", "AuthFlowSQL", "AuthFlowStores", "AuthFlowJOSE", "AuthFlowStoreTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowRedisTests",
            dependencies: [
                "AuthFlowRedis", "AuthFlowStores", "AuthFlowJOSE", "AuthFlowStoreTestSupport", "AuthFlowTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowYAMLTests", dependencies: ["AuthFlowYAML"], swiftSettings: strict),
        // Python peers (an independent HTTP client and server) and small waits, for the HTTP, curl and HTTP server
        // tests.
        .target(
            name: "AuthFlowHTTPTestSupport", dependencies: ["AuthFlowTestSupport", "AuthFlowHTTP", "AuthFlowCurl"],
            path: "Tests/Support/AuthFlowHTTPTestSupport", exclude: ["Python"], swiftSettings: strict),
        .testTarget(
            name: "AuthFlowHTTPTests",
            dependencies: ["AuthFlowHTTP", "AuthFlowHTTPTestSupport", "AuthFlowTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowCurlTests",
            dependencies: ["AuthFlowCurl", "AuthFlowHTTP", "AuthFlowHTTPTestSupport", "AuthFlowTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowHTTPServerTests",
            dependencies: [
                "AuthFlowHTTPServer", "AuthFlowHTTP", "AuthFlowCurl", "AuthFlowHTTPTestSupport", "AuthFlowTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowStoresTests", dependencies: ["AuthFlowStores", "AuthFlowJOSE"], swiftSettings: strict),
        .testTarget(
            name: "AuthFlowTests",
            dependencies: [
                "AuthFlow", "AuthFlowJOSE", "AuthFlowYAML", "AuthFlowHTTP", "AuthFlowCurl",
                // `ObservedAccountStore`, for the account resolver's races.
                "AuthFlowStoreTestSupport",
            ],
            swiftSettings: strict),
        // The whole `providers.yaml` schema as AuthFlowDeployment's loader reads it: `providers:` (the core) with
        // the sections their modules read.
        .testTarget(
            name: "AuthFlowDeploymentTests",
            dependencies: [
                "AuthFlowDeployment", "AuthFlowServer", "AuthFlow", "AuthFlowHTTP", "AuthFlowYAML", "AuthFlowGoogle",
                "AuthFlowGitHub",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowPasskeysTests",
            dependencies: [
                "AuthFlowPasskeys", "AuthFlowProviders", "AuthFlowDeployment", "AuthFlowMatrix", "AuthFlow",
            ],
            swiftSettings: strict),
        // Fixtures of the provider plugins' test targets: settings resolved through the standard registry, a flow
        // driven to its token exchange, signed id_tokens.
        .target(
            name: "AuthFlowProviderTestSupport",
            dependencies: ["AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders"],
            path: "Tests/Support/AuthFlowProviderTestSupport", swiftSettings: strict),
        .testTarget(
            name: "AuthFlowAppleTests",
            dependencies: [
                "AuthFlowApple", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowGoogleTests",
            dependencies: [
                "AuthFlowGoogle", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowFacebookTests",
            dependencies: [
                "AuthFlowFacebook", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowXTests",
            dependencies: [
                "AuthFlowX", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowMicrosoftTests",
            dependencies: [
                "AuthFlowMicrosoft", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowGitHubTests",
            dependencies: [
                "AuthFlowGitHub", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowGitLabTests",
            dependencies: [
                "AuthFlowGitLab", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowLinkedInTests",
            dependencies: [
                "AuthFlowLinkedIn", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowSlackTests",
            dependencies: [
                "AuthFlowSlack", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowDiscordTests",
            dependencies: [
                "AuthFlowDiscord", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowOAuth2Tests",
            dependencies: [
                "AuthFlowOAuth2", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowProviderTestSupport", "AuthFlowDeployment",
            ],
            swiftSettings: strict),
        // The standard registry, and every built-in plugin signing in against the sandbox through the core's flow
        // (`SignIn/`).
        .testTarget(
            name: "AuthFlowProvidersTests",
            dependencies: [
                "AuthFlowDeployment",
                "AuthFlowProviders", "AuthFlow", "AuthFlowApple", "AuthFlowGoogle", "AuthFlowFacebook", "AuthFlowX",
                "AuthFlowMicrosoft", "AuthFlowGitHub", "AuthFlowGitLab", "AuthFlowLinkedIn", "AuthFlowSlack",
                "AuthFlowDiscord", "AuthFlowOIDC", "AuthFlowSandbox",
                "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowCurl", "AuthFlowHTTPServer", "AuthFlowTestSupport",
                "AuthFlowProviderTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowSandboxTests",
            dependencies: [
                "AuthFlowDeployment",
                "AuthFlowSandbox", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowCurl", "AuthFlowHTTPServer",
                // Interop only: the built-in plugins sign in against the sandbox (the library never imports them).
                "AuthFlow", "AuthFlowProviders", "AuthFlowTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowOIDCTests",
            dependencies: [
                "AuthFlowDeployment",
                "AuthFlowOIDC", "AuthFlowProviders", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowCurl",
                "AuthFlowHTTPServer", "AuthFlowSandbox",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AuthFlowMatrixTests",
            dependencies: [
                "AuthFlowDeployment",
                "AuthFlowMatrix", "AuthFlow", "AuthFlowProviders", "AuthFlowJOSE", "AuthFlowTestSupport",
            ],
            exclude: ["Snapshots", "plugin-clean-clone.sh"], swiftSettings: strict),
        .testTarget(
            name: "AuthFlowServerTests",
            dependencies: [
                "AuthFlowServer", "AuthFlowDeployment", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowCurl",
                "AuthFlowHTTPServer", "AuthFlowSandbox", "AuthFlowDemo",
                "AuthFlowProviders", "AuthFlowSQLite", "AuthFlowTestSupport", "AuthFlowBrowserTestSupport",
                // Two instances on PostgreSQL and Redis (the passkey ceremony test).
                "AuthFlowPostgres", "AuthFlowRedis", "AuthFlowStoreTestSupport",
            ],
            exclude: ["Support/Python"], swiftSettings: strict),
        // Sandbox mode for an embedding app and the demo pages.
        .testTarget(
            name: "AuthFlowDemoTests",
            dependencies: [
                "AuthFlowDemo", "AuthFlowDeployment", "AuthFlowServer", "AuthFlow", "AuthFlowHTTP", "AuthFlowProviders",
                "AuthFlowSandbox", "AuthFlowTestSupport", "AuthFlowBrowserTestSupport",
            ],
            swiftSettings: strict),
        // Every test of the `authflow` tool: each command run as a process, as users and scripts run it.
        .testTarget(
            name: "AuthFlowCLITests",
            dependencies: [
                "AuthFlowDeployment",
                "authflow", "AuthFlow", "AuthFlowJOSE", "AuthFlowHTTP", "AuthFlowCurl", "AuthFlowHTTPServer",
                "AuthFlowMatrix", "AuthFlowProviders",
                "AuthFlowTestSupport",
            ],
            swiftSettings: strict),
    ]
)
