import AuthFlowHTTP
import Synchronization

/// Sends the queued spans to the collector over OTLP/HTTP (a protobuf `ExportTraceServiceRequest` POSTed with
/// `Content-Type: application/x-protobuf`), a batch at a time, each export bounded by the settings' timeout. Runs on
/// a task of its own (``run(interval:)``), so a collector that is down or slow delays no request: spans wait in
/// the bounded ``SpanQueue`` and are dropped when it is full. A failed export (no answer in time, a refused
/// connection, a status other than 2xx) is counted and its spans are not retried.
package final class TraceExporter: Sendable {
    /// At most this many spans per export (the OpenTelemetry batch processor's default).
    package static let batchSize = 512

    let settings: TracingSettings
    let queue: SpanQueue
    let httpClient: any HTTPClient
    let version: String?
    private let counts = Counts()

    final class Counts: Sendable {
        let exportedSpans = Atomic<UInt64>(0)
        let failedExports = Atomic<UInt64>(0)
        let failedSpans = Atomic<UInt64>(0)
    }

    package init(settings: TracingSettings, queue: SpanQueue, httpClient: any HTTPClient, version: String? = nil) {
        self.settings = settings
        self.queue = queue
        self.httpClient = httpClient
        self.version = version
    }

    /// Spans the collector accepted.
    package var exportedSpans: UInt64 { counts.exportedSpans.load(ordering: .relaxed) }
    /// Exports that failed (no answer in time, no connection, a non-2xx status).
    package var failedExports: UInt64 { counts.failedExports.load(ordering: .relaxed) }
    /// Spans lost in failed exports.
    package var failedSpans: UInt64 { counts.failedSpans.load(ordering: .relaxed) }

    /// Exports what waits, a batch at a time, until the queue is empty (or `maximumBatches` were sent); returns
    /// the number of exports attempted. Tests call it directly; ``run(interval:)`` exports the same way.
    @discardableResult
    package func exportPending(maximumBatches: Int = .max, timeout: Double? = nil) async -> Int {
        await exportBatches(maximumBatches: maximumBatches, timeout: timeout, stoppingAtFailure: false).attempts
    }

    /// ``exportPending(maximumBatches:timeout:)``, stopping at the first failed export when `stoppingAtFailure`;
    /// the exports attempted and whether one failed.
    private func exportBatches(
        maximumBatches: Int, timeout: Double?, stoppingAtFailure: Bool
    ) async -> (attempts: Int, failed: Bool) {
        var attempts = 0
        var failed = false
        while attempts < maximumBatches {
            let batch = queue.take(upTo: Self.batchSize)
            guard !batch.isEmpty else { break }
            attempts += 1
            if await !export(batch, timeout: timeout) {
                failed = true
                if stoppingAtFailure { break }
            }
        }
        return (attempts, failed)
    }

    /// Sends one batch within `timeout` seconds (the settings' by default); counts the outcome and returns whether
    /// the collector accepted it.
    @discardableResult
    package func export(_ batch: [SpanRecord], timeout: Double? = nil) async -> Bool {
        var request = HTTPClientRequest(
            method: "POST", url: settings.endpoint, headers: ["Content-Type": "application/x-protobuf"],
            body: OTLPEncoder.encode(batch, serviceName: settings.serviceName, version: version))
        request.timeout = min(timeout ?? settings.timeout, settings.timeout)
        let accepted: Bool
        do {
            let response = try await httpClient.send(request)
            accepted = (200..<300).contains(response.status)
        } catch {
            accepted = false
        }
        if accepted {
            counts.exportedSpans.add(UInt64(batch.count), ordering: .relaxed)
        } else {
            counts.failedExports.add(1, ordering: .relaxed)
            counts.failedSpans.add(UInt64(batch.count), ordering: .relaxed)
        }
        return accepted
    }

    /// Exports what waits every `interval` seconds until the task is cancelled (``Tracer/shutdown()`` then
    /// exports what is left from its own task). When an export fails, the round stops and the pause before the
    /// next one doubles, up to ``maximumBackOff`` seconds, until an export succeeds. While it backs off, the queue
    /// refuses spans (they are dropped and counted without being built) but for the last `interval` of the pause,
    /// whose spans the next export tries.
    package func run(interval: Double) async {
        var pause = interval
        while !Task.isCancelled {
            let failed = await exportBatches(maximumBatches: .max, timeout: nil, stoppingAtFailure: true).failed
            pause = failed ? min(pause * 2, max(interval, Self.maximumBackOff)) : interval
            if pause > interval {
                queue.refuse(true)
                try? await Task.sleep(for: .milliseconds(Int((pause - interval) * 1000)))
                queue.refuse(false)
            }
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        }
    }

    /// The longest pause between exports while they fail, in seconds (the OpenTelemetry exporters' longest
    /// retry interval).
    package static let maximumBackOff: Double = 30
}
