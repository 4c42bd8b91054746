// swift-tools-version: 6.0
import PackageDescription

/// Throughput of AuthFlow's full JWT paths, compared with `openssl speed` and PyJWT by `run.sh`.
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
            ])
    ]
)
