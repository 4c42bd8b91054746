import AuthFlow
import AuthFlowDeployment
import Testing

/// `server.audit_log` (docs/audit.md).
@Suite struct AuditLogConfigurationTests {
    func server(_ lines: String, directory: String = "/etc/authflow") throws -> ServerSettings? {
        let yaml = """
            server:
              public_url: http://localhost:8080
              secret: \(String(repeating: "x", count: 32))
            \(lines)

            """ + minimalProviders
        return try makeLoader().load(yaml: yaml, fileName: "\(directory)/providers.yaml").server
    }

    @Test func keepsNoTrailByDefault() throws {
        #expect(try #require(try server("")).auditLog == nil)
    }

    @Test func readsStandardErrorAFileAndAFileBesideTheConfiguration() throws {
        #expect(try server("  audit_log: stderr")?.auditLog == .standardError)
        #expect(
            try server("  audit_log: /var/log/authflow/audit.jsonl")?.auditLog == .file("/var/log/authflow/audit.jsonl")
        )
        #expect(try server("  audit_log: audit.jsonl")?.auditLog == .file("/etc/authflow/audit.jsonl"))
    }

    @Test func refusesAValueThatIsNoFileNameAtItsPosition() throws {
        for value in ["\"\"", "/var/log/", "\"a\\tb\"", "[a]"] {
            let error = try loadError(
                """
                server:
                  public_url: http://localhost:8080
                  secret: \(String(repeating: "x", count: 32))
                  audit_log: \(value)

                """ + minimalProviders)
            #expect(error.issues.count == 1, "\(value)")
            #expect(error.issues.first?.location?.line == 4, "\(value)")
            #expect(error.description.contains("server.audit_log"), "\(value)")
        }
    }
}
