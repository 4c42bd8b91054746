// swift-tools-version: 6.0
import PackageDescription

/// libFuzzer harnesses for every parser of outside input. Its own package, so the root's `swift build` and
/// `swift test` are unaffected; `scripts/fuzz.sh` builds and runs them (see Fuzz/README.md).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

func harness(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: "AuthFlow") },
        swiftSettings: strict)
}

let package = Package(
    name: "AuthFlowFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "AuthFlow", path: "..")],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "AuthFlowJOSE", package: "AuthFlow")],
            swiftSettings: strict),
        harness("FuzzJWT", ["AuthFlowJOSE"]),
        harness("FuzzJSON", ["AuthFlowJOSE"]),
        harness("FuzzJWKS", ["AuthFlowJOSE"]),
        harness("FuzzCBOR", ["AuthFlowJOSE"]),
        harness("FuzzConfiguration", ["AuthFlow", "AuthFlowProviders", "AuthFlowDeployment"]),
        harness("FuzzCallback", ["AuthFlow", "AuthFlowProviders", "AuthFlowHTTP", "AuthFlowJOSE"]),
        harness("FuzzCookie", ["AuthFlowHTTP", "AuthFlowServer"]),
        harness("FuzzAppleUser", ["AuthFlow", "AuthFlowProviders"]),
        harness(
            "FuzzNotification", ["AuthFlow", "AuthFlowProviders", "AuthFlowHTTP", "AuthFlowJOSE", "AuthFlowServer"]),
        harness("FuzzFlowCookie", ["AuthFlowServer"]),
        harness("FuzzRedisReply", ["AuthFlowStores", "AuthFlowRedis"]),
        harness(
            "FuzzSignedRequest", ["AuthFlow", "AuthFlowProviders", "AuthFlowHTTP", "AuthFlowJOSE", "AuthFlowServer"]),
        harness(
            "FuzzSecurityEvent", ["AuthFlow", "AuthFlowProviders", "AuthFlowHTTP", "AuthFlowJOSE", "AuthFlowServer"]),
        harness(
            "FuzzLogoutToken",
            ["AuthFlow", "AuthFlowOIDC", "AuthFlowProviders", "AuthFlowHTTP", "AuthFlowJOSE", "AuthFlowServer"]),
        harness("FuzzForwardAuth", ["AuthFlow", "AuthFlowProviders", "AuthFlowHTTP", "AuthFlowJOSE", "AuthFlowServer"]),
        harness(
            "FuzzNativeSignIn", ["AuthFlow", "AuthFlowProviders", "AuthFlowHTTP", "AuthFlowJOSE", "AuthFlowServer"]),
        harness("FuzzTraceparent", ["AuthFlowServer"]),
    ]
)
