import AuthFlow
import AuthFlowMatrix
import AuthFlowTestSupport
import Foundation
import Testing

/// Every format compared byte for byte with a stored snapshot (Tests/AuthFlowMatrixTests/Snapshots/).
///
/// After an intended change, run `AUTHFLOW_UPDATE_SNAPSHOTS=1 swift test --filter AuthFlowMatrixTests` and
/// review the diff of the snapshot files.
@Suite struct MatrixSnapshotTests {
    /// A configuration exercising what the examples do not: a provider named apart from its type, Apple
    /// without name/email scopes (form_post optional), no server (nothing stored).
    static let edgeConfiguration = """
        providers:
          work-google:
            type: google
            client_id: a
            client_secret: ${S}
            redirect_uri: https://app.example/cb
            capabilities: { pkce: false }
          apple:
            client_id: com.example
            team_id: ${T}
            key_id: ${K}
            private_key_file: ${P}
            scopes: []
            redirect_uri: https://app.example/apple
            capabilities: { form_post: false }
        """

    static func extensionName(_ format: MatrixFormat) -> String {
        switch format {
        case .text: "txt"
        case .markdown: "md"
        case .json: "json"
        case .html: "html"
        }
    }

    /// Compares `actual` with the snapshot `name`, or writes it when updating.
    static func assertSnapshot(
        _ actual: String, named name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    )
        throws
    {
        let file = MatrixTestSupport.snapshots.appendingPathComponent(name)
        if MatrixTestSupport.updating {
            try Data(actual.utf8).write(to: file)
            return
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            Issue.record(
                "no snapshot \(name); run AUTHFLOW_UPDATE_SNAPSHOTS=1 swift test --filter AuthFlowMatrixTests",
                sourceLocation: sourceLocation)
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        if let difference = TextDifference.first(expected: expected, actual: actual, expectedName: "snapshot") {
            let message =
                "\(name) differs from its snapshot\n\(difference)\n(if intended: AUTHFLOW_UPDATE_SNAPSHOTS=1 swift test "
                + "--filter AuthFlowMatrixTests, then review the snapshot diff)"
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: MatrixFormat.allCases)
    func plainExampleMatchesItsSnapshot(format: MatrixFormat) throws {
        let matrix = CapabilityMatrix(
            providers: try MatrixTestSupport.providers("examples/plain.yaml"), source: "examples/plain.yaml")
        try Self.assertSnapshot(matrix.render(format: format), named: "plain.\(Self.extensionName(format))")
    }

    @Test(arguments: MatrixFormat.allCases)
    func edgeConfigurationMatchesItsSnapshot(format: MatrixFormat) throws {
        let matrix = CapabilityMatrix(
            providers: try MatrixTestSupport.providers(yaml: Self.edgeConfiguration), source: "edge.yaml",
            storesTokens: false)
        try Self.assertSnapshot(matrix.render(format: format), named: "edge.\(Self.extensionName(format))")
    }
}
