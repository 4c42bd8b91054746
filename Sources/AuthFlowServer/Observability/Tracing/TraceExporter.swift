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
    /// the number of exports attempted. Tests call it directly; ``run(interval:)`` calls it on every tick.
    @discardableResult
    package func exportPending(maximumBatches: Int = .max, timeout: Double? = nil) async -> Int {
        var attempts = 0
        while attempts < maximumBatches {
            let batch = queue.take(upTo: Self.batchSize)
            guard !batch.isEmpty else { break }
            attempts += 1
            await export(batch, timeout: timeout)
        }
        return attempts
    }

    /// Sends one batch within `timeout` seconds (the settings' by default); counts the outcome.
    package func export(_ batch: [SpanRecord], timeout: Double? = nil) async {
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
    }

    /// Exports what waits every `interval` seconds until the task is cancelled (``Tracer/shutdown()`` then
    /// exports what is left from its own task).
    package func run(interval: Double) async {
        while !Task.isCancelled {
            await exportPending()
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        }
    }
}
