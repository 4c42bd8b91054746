@testable import AuthFlow
import AuthFlowProviders
import FuzzSupport

/// Apple's unsigned first-login `user` field: a profile or `invalid_user_field`, never a crash, and never a
/// name holding U+FFFD (what invalid UTF-8 decodes to).
let apple: ResolvedProvider = {
    let settings = ProviderSettings(
        name: "apple", type: "apple", clientID: "com.example.web", teamID: "ABCDE12345", keyID: "KEY1234567",
        privateKey: Secret(FixedKeys.ecPEM),
        location: SourceLocation(fileName: "fuzz.yaml", line: 1, column: 1, sourceLine: nil))
    do { return try ProviderRegistry.standard.resolve(settings, publicURL: "https://app.example") } catch {
        fatalError("the fuzz Apple provider does not resolve: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppleUser(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    // As the form decoder hands it over: invalid UTF-8 decoded lossily.
    let user = text(data, count)
    do {
        let profile = try apple.plugin.identity.unverifiedProfile(
            from: CallbackParameters([("user", user)]), provider: apple)
        if let name = profile?.displayName, name.unicodeScalars.contains("\u{FFFD}") {
            fatalError("a name with U+FFFD was accepted")
        }
    } catch {
        if error.code != "invalid_user_field" { fatalError("unexpected error code \(error.code)") }
    }
    return 0
}
