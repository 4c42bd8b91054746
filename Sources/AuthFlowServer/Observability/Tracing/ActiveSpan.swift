import AuthFlowJOSE
import Synchronization

/// A span being recorded: the server span of a request (the task-local ``current``, which client spans and flow
/// events attach to) or a client span. Attributes and events are added under a lock; ``Tracer`` ends it.
package final class ActiveSpan: Sendable {
    package let context: TraceContext
    package let parentSpanID: [UInt8]?
    private let record: Mutex<SpanRecord>
    /// The tracer's clock, for the events' times.
    let clock: any WallClock

    init(record: SpanRecord, clock: any WallClock) {
        self.context = record.context
        self.parentSpanID = record.parentSpanID
        self.record = Mutex(record)
        self.clock = clock
    }

    /// Adds an event named `name` now (the tracer's clock).
    package func event(_ name: String, _ attributes: [SpanAttribute] = []) {
        add(SpanEvent(name: name, time: Tracer.nanoseconds(clock.now()), attributes: attributes))
    }

    /// Sets (or replaces) attribute `key`.
    package func set(_ key: String, _ value: SpanAttributeValue) {
        record.withLock { record in
            record.attributes.removeAll { $0.key == key }
            record.attributes.append(SpanAttribute(key, value))
        }
    }

    /// Adds an event, keeping at most ``maximumEvents`` (later ones are dropped).
    package func add(_ event: SpanEvent) {
        record.withLock { record in
            guard record.events.count < Self.maximumEvents else { return }
            record.events.append(event)
        }
    }

    /// The span as it stands, with `end`, `status` and `attributes` (distinct keys) added, replacing any set before.
    func finished(end: UInt64, status: SpanRecord.Status, adding attributes: [SpanAttribute]) -> SpanRecord {
        record.withLock { record in
            var finished = record
            finished.end = max(end, record.start)
            finished.status = status
            // The usual case: nothing was set before, and the callers' attributes have distinct keys.
            guard !finished.attributes.isEmpty else {
                finished.attributes = attributes
                return finished
            }
            for attribute in attributes {
                finished.attributes.removeAll { $0.key == attribute.key }
                finished.attributes.append(attribute)
            }
            return finished
        }
    }

    /// At most this many events per span (the OpenTelemetry SDK's default limit).
    static let maximumEvents = 128

    /// The server span of the request this task handles, when tracing is on. A task-local, as the trace context is
    /// in Swift (`ServiceContext`): the plugins' and stores' HTTP requests open their client spans under it without
    /// it being passed to them. Nothing but tracing reads it.
    @TaskLocal package static var current: ActiveSpan?
}
