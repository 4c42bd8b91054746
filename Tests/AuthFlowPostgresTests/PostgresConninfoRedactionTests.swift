import AuthFlowStores
import Testing

@testable import AuthFlowPostgres

/// libpq's own messages quote the connection string (password included) when it cannot parse it; AuthFlow's
/// errors, which `serve` and `check --connect` print, never do. No server is needed: parsing fails first, and a
/// refused connection goes to a closed port.
@Suite struct PostgresConninfoRedactionTests {
    static let password = "hunter2-Do-Not-Print"

    @Test(arguments: [
        // libpq: invalid percent-encoded token: "<password>%zz"
        "postgresql://app:\(password)%zz@127.0.0.1:1/authflow",
        // libpq: end of string reached when looking for matching "]" … in URI: "<the whole URL>"
        "postgresql://app:\(password)@[::1/authflow",
        "postgres://app:\(password)@127.0.0.1:1/authflow?nosuchparameter=1",
        "host=127.0.0.1 port=1 password='\(password)' unterminated",
        "host=127.0.0.1 port=1 password=\(password) dbname=authflow connect_timeout=2",
        "postgresql://app:\(password)@127.0.0.1:1/authflow?connect_timeout=2",
    ])
    func neverQuotesTheConnectionStringOrItsPassword(_ url: String) throws {
        let opened = #expect(throws: StoreError.self) { try PostgresDatabase(url: url) }
        let probed = #expect(throws: StoreError.self) { try PostgresDatabase.probe(url: url) }
        for error in [opened, probed].compactMap({ $0 }) {
            #expect(!error.description.contains(Self.password), "\(error.description)")
            #expect(!error.description.contains("hunter2"))
            #expect([.invalidValue, .backendFailure].contains(error.code))
        }
    }

    @Test func redactsThePasswordAsWrittenAndAsParsed() throws {
        let redaction = try PostgresConninfoRedaction("postgresql://app:s%40cret-pw@db.internal/authflow")
        let text = redaction.redact(
            "found s%40cret-pw, then s@cret-pw, in postgresql://app:s%40cret-pw@db.internal/authflow")
        #expect(!text.contains("cret-pw"))
        #expect(text.contains("<redacted>"))
        let conninfo = try PostgresConninfoRedaction("host=db.internal password='two words' dbname=authflow")
        #expect(conninfo.redact("password two words refused") == "password <redacted> refused")
    }
}
