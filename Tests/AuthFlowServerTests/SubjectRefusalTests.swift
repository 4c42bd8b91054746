import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowSandbox
import Testing

@testable import AuthFlowServer

/// A provider subject becomes a stored key that admin tools print and logs name: one with a control, line
/// separator or bidirectional control character, or longer than 255 bytes, is refused with `invalid_subject`
/// before anything is stored, on the web callback and the native sign-in alike.
@Suite("Subjects: refused at sign-in unless printable and bounded")
struct SubjectRefusalTests {
    /// A subject and what is wrong with it (the test's name shows the kind, never the raw characters).
    struct Refused: Sendable, CustomTestStringConvertible {
        let kind: String
        let subject: String
        var testDescription: String { kind }
    }

    /// Subjects that could forge a line or drive a terminal, one of each forbidden kind, and one too long.
    static let refused: [Refused] = [
        .init(kind: "ESC", subject: "evil\u{1B}[2J"), .init(kind: "CR LF", subject: "evil\r\nu-forged"),
        .init(kind: "LF", subject: "evil\nline"), .init(kind: "BEL", subject: "evil\u{07}"),
        .init(kind: "NUL", subject: "evil\u{00}"), .init(kind: "DEL", subject: "evil\u{7F}"),
        .init(kind: "C1 NEL", subject: "evil\u{85}"), .init(kind: "C1 CSI", subject: "evil\u{9B}31m"),
        .init(kind: "line separator", subject: "evil\u{2028}"),
        .init(kind: "paragraph separator", subject: "evil\u{2029}"),
        .init(kind: "bidi override", subject: "evil\u{202E}cba"),
        .init(kind: "256 bytes", subject: String(repeating: "s", count: 256)),
    ]

    @Test(arguments: refused)
    func theWebCallbackRefusesTheSubjectAndStoresNothing(_ refused: Refused) async throws {
        let subject = refused.subject
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let identity = SandboxIdentity(subject: subject, email: "eve@example.com", givenName: "Eve")
            let response = try await app.signIn(browser, provider: "google", as: identity)
            #expect(response.status == 403)
            #expect(errorCode(response) == "invalid_subject")
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "google", subject: subject)) == nil)
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test(arguments: refused)
    func theNativeSignInRefusesTheSubjectAndStoresNothing(_ refused: Refused) async throws {
        let subject = refused.subject
        try await TestDeployment.with(NativeApp.settings) { app in
            let identity = SandboxIdentity(subject: subject, email: "eve@example.com", givenName: "Eve")
            let answer = try await app.nativeSignIn("google", as: identity)
            #expect(answer.status == 403)
            #expect(answer.error == "invalid_subject")
            #expect(answer["session_token"] == nil)
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "google", subject: subject)) == nil)
        }
    }

    @Test func aSubjectOf255BytesWithNonASCIILettersSignsIn() async throws {
        try await TestDeployment.with { app in
            let subject = String(repeating: "é", count: 127) + "s"
            #expect(subject.utf8.count == 255)
            let browser = TestBrowser()
            let response = try await app.signIn(browser, provider: "google", as: SandboxIdentity(subject: subject))
            #expect(response.status == 302)
            #expect(try await app.session(browser).json?["subject"]?.stringValue == subject)
        }
    }
}
