// swift-tools-version: 6.0
import PackageDescription

// Three small backends that embed AuthFlow, depending on the AuthFlow package by path (`../..`, the
// repository root). Copy one into your own package and depend on AuthFlow by URL instead.
let package = Package(
    name: "Embedding",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "AuthFlow", path: "../..")],
    targets: [
        // What the three executables share: reading providers.yaml (its whole schema, composed in
        // AuthFlowDeployment), waiting for Ctrl-C.
        .target(
            name: "EmbeddingSupport",
            dependencies: [
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "AuthFlowDeployment", package: "AuthFlow"),
            ]),
        // (1) An app with its own routes that mounts SignInServer under /auth/.
        .executableTarget(
            name: "EmbeddedApp",
            dependencies: ["EmbeddingSupport", .product(name: "AuthFlowDeployment", package: "AuthFlow")]),
        // (2) The bare SignIn driver in a backend that keeps its own sessions and user table.
        .executableTarget(
            name: "OwnSessions",
            dependencies: [
                "EmbeddingSupport", .product(name: "AuthFlowProviders", package: "AuthFlow"),
                .product(name: "AuthFlowCurl", package: "AuthFlow"),
                .product(name: "AuthFlowHTTPServer", package: "AuthFlow"),
            ]),
        // (3) A provider plugin defined in the app, with its own `type:`.
        .executableTarget(
            name: "CustomProvider",
            dependencies: ["EmbeddingSupport", .product(name: "AuthFlowDeployment", package: "AuthFlow")]),
    ]
)
