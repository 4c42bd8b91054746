import Foundation
import Testing

@testable import AuthFlowHTTP

@Suite("Metrics registry")
struct MetricsRegistryTests {
    @Test func rendersCountersInTheTextFormatWithPreregisteredSeriesAtZero() throws {
        let registry = MetricsRegistry()
        let requests = try registry.counter(
            "app_requests_total", help: "Requests answered.", labels: ["route", "status"],
            preregistered: [["/a", "200"], ["/a", "404"]])
        requests.labels("/a", "200")?.increment()
        requests.labels("/a", "200")?.increment(by: 2)
        requests.labels("/b", "500")?.increment()
        #expect(
            registry.render() == """
                # HELP app_requests_total Requests answered.
                # TYPE app_requests_total counter
                app_requests_total{route="/a",status="200"} 3
                app_requests_total{route="/a",status="404"} 0
                app_requests_total{route="/b",status="500"} 1

                """)
    }

    @Test func rendersAnUnlabelledCounterAsOneSeries() throws {
        let registry = MetricsRegistry()
        let starts = try registry.counter("app_starts_total", help: "Starts.")
        starts.labels()?.increment()
        #expect(registry.render().hasSuffix("app_starts_total 1\n"))
    }

    @Test func histogramBucketsAreCumulativeWithSumAndCount() throws {
        let registry = MetricsRegistry()
        let durations = try registry.histogram(
            "app_duration_seconds", help: "Durations.", labels: ["endpoint"], buckets: [0.1, 1],
            preregistered: [["token"]])
        let token = try #require(durations.labels("token"))
        for value in [0.05, 0.1, 0.5, 3.0] { token.observe(value) }
        token.observe(.nan)
        #expect(
            registry.render() == """
                # HELP app_duration_seconds Durations.
                # TYPE app_duration_seconds histogram
                app_duration_seconds_bucket{endpoint="token",le="0.1"} 2
                app_duration_seconds_bucket{endpoint="token",le="1"} 3
                app_duration_seconds_bucket{endpoint="token",le="+Inf"} 4
                app_duration_seconds_sum{endpoint="token"} 3.65
                app_duration_seconds_count{endpoint="token"} 4

                """)
    }

    @Test func escapesLabelValuesAndHelpText() throws {
        let registry = MetricsRegistry()
        let family = try registry.counter("app_x_total", help: "A \\ and\na line.", labels: ["v"])
        family.labels("quote \" back \\ line\nend")?.increment()
        let text = registry.render()
        #expect(text.contains("# HELP app_x_total A \\\\ and\\na line.\n"))
        #expect(text.contains(#"app_x_total{v="quote \" back \\ line\nend"} 1"#))
    }

    @Test func boundsTheNumberOfSeries() throws {
        let registry = MetricsRegistry()
        let family = try registry.counter(
            "app_codes_total", help: "Codes.", labels: ["code"], preregistered: [["a"]], maximumSeries: 3)
        for code in ["a", "b", "c", "d", "e"] { family.labels(code)?.increment() }
        #expect(family.labels("d") == nil)
        #expect(family.labels("a") != nil)
        let series = registry.render().split(separator: "\n").filter { $0.hasPrefix("app_codes_total{") }
        #expect(
            series == [
                #"app_codes_total{code="a"} 1"#, #"app_codes_total{code="b"} 1"#, #"app_codes_total{code="c"} 1"#,
            ])
    }

    @Test func refusesTheWrongNumberOfLabelValues() throws {
        let registry = MetricsRegistry()
        let family = try registry.counter("app_y_total", help: "Y.", labels: ["a", "b"])
        #expect(family.labels("only-one") == nil)
        #expect(throws: MetricsError.self) {
            _ = try registry.counter("app_z_total", help: "Z.", labels: ["a"], preregistered: [["1", "2"]])
        }
    }

    @Test func refusesInvalidAndDuplicateNames() throws {
        let registry = MetricsRegistry()
        _ = try registry.counter("app_ok_total", help: "OK.")
        for (name, labels) in [("0bad", []), ("bad-name", []), ("", []), ("app_l", ["__reserved"]), ("app_m", ["a:b"])]
        {
            #expect {
                _ = try registry.counter(name, help: "x", labels: labels)
            } throws: { ($0 as? MetricsError)?.code == .invalidName }
        }
        #expect {
            _ = try registry.counter("app_ok_total", help: "again")
        } throws: { ($0 as? MetricsError)?.code == .duplicateName }
        #expect {
            _ = try registry.histogram("app_h", help: "h", buckets: [1, 0.5])
        } throws: { ($0 as? MetricsError)?.code == .invalidBuckets }
        #expect {
            _ = try registry.histogram("app_le", help: "h", labels: ["le"])
        } throws: { ($0 as? MetricsError)?.code == .invalidName }
    }

    @Test func countsEveryIncrementUnderConcurrentUpdates() async throws {
        let registry = MetricsRegistry()
        let family = try registry.counter("app_hits_total", help: "Hits.", labels: ["k"], preregistered: [["x"]])
        let histogram = try registry.histogram("app_h_seconds", help: "H.", buckets: [1])
        let counter = try #require(family.labels("x"))
        let series = try #require(histogram.labels())
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1000 {
                        counter.increment()
                        series.observe(0.5)
                    }
                }
            }
        }
        #expect(counter.value == 8000)
        #expect(series.snapshot.count == 8000)
        #expect(series.snapshot.sum == 4000)
    }

    @Test func sampledMetricsAreReadAtRenderingAndLeftOutWhenUnavailable() throws {
        let registry = MetricsRegistry()
        try registry.sampled("app_size", help: "Size.", type: .gauge) { 42.5 }
        try registry.sampled("app_missing", help: "Missing.", type: .gauge) { nil }
        let text = registry.render()
        #expect(text == "# HELP app_size Size.\n# TYPE app_size gauge\napp_size 42.5\n")
    }

    @Test func processMetricsComeFromProc() throws {
        let registry = MetricsRegistry()
        try ProcessMetrics.register(in: registry)
        let text = registry.render()
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            values[String(parts[0])] = Double(parts[1])
        }
        #expect((values["process_resident_memory_bytes"] ?? 0) > 0)
        #expect((values["process_open_fds"] ?? 0) > 0)
        #expect(values["process_cpu_seconds_total"] != nil)
        let start = try #require(values["process_start_time_seconds"])
        #expect(start > 1_600_000_000 && start <= Date().timeIntervalSince1970)
        #expect(text.contains("# TYPE process_cpu_seconds_total counter"))
    }

    @Test func processMetricsAreLeftOutWithoutProc() throws {
        let registry = MetricsRegistry()
        try ProcessMetrics.register(in: registry, procRoot: "/nonexistent-proc")
        #expect(registry.render() == "")
    }
}
