// `@testable`: the resolvable part of a configuration with issues (`ConfigurationError.readable`, what
// `authflow check` resolves) is package API; scripts/fuzz.sh builds with -enable-testing.
@testable import AuthFlow
import AuthFlowDeployment
import AuthFlowProviders
import Foundation
import FuzzSupport

/// `providers.yaml` loading (every section, as `authflow serve` composes them) and resolution against the
/// built-in plugins: any text yields a configuration or positioned issues, never a crash. Files named by `*_file` keys come from a tiny in-memory file system;
/// `${VAR}` reads a fixed environment.
let loader = ConfigurationLoader(environment: ["AUTHFLOW_SECRET": String(repeating: "s", count: 40), "EMPTY": ""]) {
    path in
    switch path {
    case "key.p8": return FixedKeys.ecPEM
    case "secret.txt": return "client-secret"
    default: throw CocoaError(.fileReadNoSuchFile)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let yaml = String(validating: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self) else {
        return 0
    }
    do {
        let configuration = try loader.load(yaml: yaml, fileName: "providers.yaml")
        _ = try? ProviderRegistry.standard.resolve(configuration, credentials: .values)
    } catch {
        for issue in error.issues { _ = issue.description }
        if let readable = error.readable { _ = try? ProviderRegistry.standard.resolve(readable) }
    }
    return 0
}
