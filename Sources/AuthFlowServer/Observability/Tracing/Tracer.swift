import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// The server's OpenTelemetry tracer (`server.tracing`, docs/tracing.md): one SERVER span per request, a CLIENT
/// span per provider call (``TracingHTTPClient``), the sign-in's steps as events. Finished spans go to a bounded
/// ``SpanQueue`` that a ``TraceExporter`` drains on a task of its own. Ids come from the injected randomness (through a
/// buffer), times from the injected clock.
package final class Tracer: Sendable {
    package let settings: TracingSettings
    package let queue: SpanQueue
    package let exporter: TraceExporter
    let clock: any WallClock
    let random: BufferedRandom
    private let endpointNames = Mutex<[String: EndpointName]>([:])
    /// `url.scheme`, `server.address` and `server.port` of the public URL, worked out once (``describe(_:publicURL:)``).
    private let publicURLAttributes = Mutex<[SpanAttribute]>([])
    private let loop = Mutex<Task<Void, Never>?>(nil)

    /// What a provider URL is: whose endpoint and which one.
    struct EndpointName: Sendable {
        let provider: String
        let endpoint: String
    }

    /// A tracer exporting to `settings.endpoint` with `httpClient` (never a traced client: the export would trace
    /// itself).
    package init(
        settings: TracingSettings, clock: any WallClock, random: any SecureRandom, httpClient: any HTTPClient,
        queueCapacity: Int? = nil, version: String? = nil
    ) {
        self.settings = settings
        self.clock = clock
        self.random = BufferedRandom(source: random)
        self.queue = SpanQueue(capacity: queueCapacity ?? settings.queueSize)
        self.exporter = TraceExporter(settings: settings, queue: queue, httpClient: httpClient, version: version)
    }

    /// Starts the exporter's task, exporting every `interval` seconds.
    package func start(interval: Double = 1) {
        let exporter = exporter
        loop.withLock { task in
            guard task == nil else { return }
            task = Task.detached { await exporter.run(interval: interval) }
        }
    }

    /// Stops the exporter's task and sends one last batch of what is left, within at most
    /// ``shutdownTimeout`` seconds, so that stopping never waits long for a collector that is down or slow.
    package func shutdown() async {
        let task = loop.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        await exporter.exportPending(maximumBatches: 1, timeout: Self.shutdownTimeout)
    }

    /// The most the last export at shutdown may take, in seconds.
    package static let shutdownTimeout: Double = 2

    /// Names the providers' endpoint URLs, so client spans say which endpoint they called, and takes the server's
    /// `url.scheme`, `server.address` and `server.port` from its public URL.
    package func describe(_ providers: [ResolvedProvider], publicURL: String) {
        let attributes = Self.addressAttributes(of: publicURL, scheme: true)
        publicURLAttributes.withLock { $0 = attributes }
        var names: [String: EndpointName] = [:]
        for provider in providers {
            let endpoints = provider.endpoints
            let pairs: [(String?, String)] = [
                (endpoints.token, "token"), (endpoints.userinfo, "userinfo"), (endpoints.jwks, "jwks"),
                (endpoints.revocation, "revocation"), (endpoints.pushedAuthorizationRequest, "pushed_authorization"),
            ]
            for case (let url?, let endpoint) in pairs {
                names[Self.withoutQuery(url)] = EndpointName(provider: provider.name, endpoint: endpoint)
            }
        }
        endpointNames.withLock { $0.merge(names) { _, new in new } }
    }

    /// The server span's attributes from the public URL.
    var serverAddress: [SpanAttribute] { publicURLAttributes.withLock { $0 } }

    /// `server.address` and `server.port` (and `url.scheme` when `scheme`) of `url`.
    static func addressAttributes(of url: String, scheme withScheme: Bool) -> [SpanAttribute] {
        guard let parts = URLComponents(string: url) else { return [] }
        var attributes: [SpanAttribute] = []
        if withScheme, let scheme = parts.scheme { attributes.append(SpanAttribute("url.scheme", .string(scheme))) }
        if let host = parts.host { attributes.append(SpanAttribute("server.address", .string(host))) }
        if let port = parts.port ?? (parts.scheme == "https" ? 443 : parts.scheme == "http" ? 80 : nil) {
            attributes.append(SpanAttribute("server.port", .int(Int64(port))))
        }
        return attributes
    }

    func endpointName(of url: String) -> EndpointName? {
        let bare = Self.withoutQuery(url)
        if let name = endpointNames.withLock({ $0[bare] }) { return name }
        return bare.hasSuffix("/.well-known/openid-configuration")
            || bare.hasSuffix("/.well-known/oauth-authorization-server")
            ? EndpointName(provider: "", endpoint: "discovery") : nil
    }

    /// A new span: in `parent`'s trace (a child of its span) or, without one, the root of a new trace.
    func open(_ name: String, kind: SpanRecord.Kind, parent: TraceContext?, at start: Date) -> ActiveSpan {
        let context: TraceContext
        if let parent {
            context = TraceContext(
                traceID: parent.traceID, spanID: spanID(), flags: parent.flags, state: parent.state)
        } else {
            context = TraceContext(traceID: traceID(), spanID: spanID())
        }
        let record = SpanRecord(
            context: context, parentSpanID: parent?.spanID, name: name, kind: kind,
            start: Self.nanoseconds(start), end: 0)
        return ActiveSpan(record: record, clock: clock)
    }

    /// Ends `span` now and queues it (unless its trace is not sampled); never blocks. Its callers build the
    /// attributes only for a span the queue ``admits(_:)``.
    func close(_ span: ActiveSpan, status: SpanRecord.Status, adding attributes: [SpanAttribute]) {
        guard span.context.flags & 1 == 1 else { return }
        queue.push(span.finished(end: Self.nanoseconds(clock.now()), status: status, adding: attributes))
    }

    /// 16 random bytes, never all zero. Ids come from the secure source, not a faster predictable generator:
    /// a trace id leaves the server in `traceparent`, and ids that follow from one another would tell whoever
    /// sees one how many requests came between and let them name other requests' traces.
    func traceID() -> [UInt8] { nonZero(16) }

    /// 8 random bytes, never all zero.
    func spanID() -> [UInt8] { nonZero(8) }

    private func nonZero(_ count: Int) -> [UInt8] {
        var bytes = random.bytes(count)
        if bytes.allSatisfy({ $0 == 0 }) { bytes[count - 1] = 1 }
        return bytes
    }

    /// `date` as nanoseconds since the Unix epoch (0 before it).
    static func nanoseconds(_ date: Date) -> UInt64 {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds > 0 else { return 0 }
        let whole = seconds.rounded(.down)
        return UInt64(whole) * 1_000_000_000 + UInt64(((seconds - whole) * 1e9).rounded(.down))
    }

    /// `url` without its query and fragment (a query may carry a token, so it is never recorded). Searched byte by
    /// byte: a search by characters cost a provider call several thousand instructions per URL.
    static func withoutQuery(_ url: String) -> String {
        guard let cut = url.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return url
        }
        return String(url[..<cut])
    }

    /// Registers the tracer's counters in `registry` (the server's `/metrics`).
    package func registerMetrics(in registry: MetricsRegistry) throws(MetricsError) {
        let queue = queue
        let exporter = exporter
        try registry.sampled(
            "authflow_tracing_spans_dropped_total",
            help: "Spans dropped because the export queue was full (the collector is down or slow).",
            type: .counter, read: { Double(queue.dropped) })
        try registry.sampled(
            "authflow_tracing_export_failures_total",
            help: "Span exports that failed (no connection, no answer in time, a status other than 2xx).",
            type: .counter, read: { Double(exporter.failedExports) })
        try registry.sampled(
            "authflow_tracing_spans_failed_total", help: "Spans lost in failed exports.", type: .counter,
            read: { Double(exporter.failedSpans) })
        try registry.sampled(
            "authflow_tracing_spans_exported_total", help: "Spans the collector accepted.", type: .counter,
            read: { Double(exporter.exportedSpans) })
        try registry.sampled(
            "authflow_tracing_queue_spans", help: "Spans waiting to be exported.", type: .gauge,
            read: { Double(queue.count) })
    }
}
