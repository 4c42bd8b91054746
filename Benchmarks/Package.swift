// swift-tools-version: 6.0
import PackageDescription

/// Throughput of AuthFlow's full JWT paths, compared with `openssl speed` and PyJWT by `run.sh`, and the floor
/// of the HTTP layer that `server.sh` measures beside `authflow serve`.
let package = Package(
    name: "AuthFlowBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "AuthFlow", path: "..")],
    targets: [
        .executableTarget(
            name: "JOSEBenchmark",
            dependencies: [.product(name: "AuthFlowJOSE", package: "AuthFlow")],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]),
        .executableTarget(
            name: "HTTPFloor",
            dependencies: [
                .product(name: "AuthFlowHTTP", package: "AuthFlow"),
                .product(name: "AuthFlowHTTPServer", package: "AuthFlow"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]),
    ]
)
