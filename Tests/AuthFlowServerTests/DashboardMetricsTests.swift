import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// `examples/grafana/authflow.json` and `examples/prometheus/alerts.yml` name only metrics the server exports
/// (a renamed metric would leave an empty panel or an alert that never fires), and the dashboard shows every
/// metric family the server exports. `promtool check rules` and `promtool test rules` run in scripts/test.sh.
@Suite("Dashboards and alerts: every metric they name is one the server exports")
struct DashboardMetricsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The series names `/metrics` can hold: each family, and a histogram's `_bucket`, `_sum` and `_count`.
    static func exported() throws -> (families: Set<String>, series: Set<String>) {
        let text = try ServerMetrics(providers: ["google"]).registry.render()
        var families: Set<String> = []
        var series: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            guard parts.count == 4 else { continue }
            let name = String(parts[2])
            families.insert(name)
            series.insert(name)
            if parts[3] == "histogram" { series.formUnion([name + "_bucket", name + "_sum", name + "_count"]) }
        }
        return (families, series)
    }

    /// Every `authflow_…` and `process_…` name in `file`.
    static func names(in file: String) throws -> Set<String> {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let pattern = try Regex("\\b(authflow|process)_[a-z_]+")
        return Set(text.matches(of: pattern).map { String(text[$0.range]) })
    }

    @Test(arguments: ["examples/grafana/authflow.json", "examples/prometheus/alerts.yml"])
    func namesOnlyExportedMetrics(_ file: String) throws {
        let used = try Self.names(in: file)
        #expect(!used.isEmpty)
        let unknown = used.subtracting(try Self.exported().series)
        #expect(unknown.isEmpty, "\(file) names metrics the server does not export: \(unknown.sorted())")
    }

    @Test func theDashboardShowsEveryMetricFamily() throws {
        let used = try Self.names(in: "examples/grafana/authflow.json")
        let shown = Set(
            used.map { name in
                ["_bucket", "_sum", "_count"].first { name.hasSuffix($0) }.map { String(name.dropLast($0.count)) }
                    ?? name
            })
        let missing = try Self.exported().families.subtracting(shown)
        #expect(missing.isEmpty, "no panel shows \(missing.sorted())")
    }

    @Test func theDashboardIsJSONWithATargetPerPanel() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("examples/grafana/authflow.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        for panel in panels where panel["type"] as? String != "row" {
            let targets = panel["targets"] as? [[String: Any]] ?? []
            #expect(!targets.isEmpty && targets.allSatisfy { ($0["expr"] as? String)?.isEmpty == false })
        }
    }

    @Test func checkDurationsAreRecordedPerCheckRoute() async throws {
        var settings = TestDeployment.Settings()
        settings.metrics = try ServerMetrics(providers: settings.providers)
        try await TestDeployment.with(settings) { app in
            for path in ["/auth/check", "/auth/forward/provider=google", "/auth/session"] {
                let answer = try await TestBrowser().get(app.appURL + path)
                #expect(answer.status == 401)
            }
            let request = HTTPServerRequest(method: "GET", path: "/metrics", remoteAddress: "127.0.0.1")
            let text = String(decoding: app.server.metricsResponse(request).body, as: UTF8.self)
            #expect(text.contains("authflow_check_duration_seconds_count{route=\"/auth/check\"} 1\n"))
            #expect(text.contains("authflow_check_duration_seconds_count{route=\"/auth/forward\"} 1\n"))
            #expect(text.contains("authflow_http_requests_total{route=\"/auth/forward\",status=\"401\"} 1\n"))
            #expect(!text.contains("authflow_check_duration_seconds_count{route=\"/auth/session\"}"))
        }
    }
}
