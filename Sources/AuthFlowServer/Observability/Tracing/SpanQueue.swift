import Synchronization

/// The bounded queue finished spans wait in for the exporter. Adding never blocks and never waits for the
/// exporter: when the queue is full the span is dropped and counted (``dropped``).
package final class SpanQueue: Sendable {
    /// At most this many spans wait (the OpenTelemetry batch processor's default queue size).
    package let capacity: Int
    private let spans: Mutex<[SpanRecord]>
    private let droppedCount = Atomic<UInt64>(0)

    package init(capacity: Int = 2048) {
        self.capacity = max(1, capacity)
        self.spans = Mutex([])
    }

    /// Adds `span`; `false` (and counted as dropped) when the queue was full.
    @discardableResult
    package func push(_ span: SpanRecord) -> Bool {
        let added = spans.withLock { spans in
            guard spans.count < capacity else { return false }
            spans.append(span)
            return true
        }
        if !added { droppedCount.add(1, ordering: .relaxed) }
        return added
    }

    /// Takes up to `limit` of the oldest spans (none when the queue is empty).
    package func take(upTo limit: Int) -> [SpanRecord] {
        spans.withLock { spans in
            let count = min(max(0, limit), spans.count)
            let batch = Array(spans.prefix(count))
            spans.removeFirst(count)
            return batch
        }
    }

    /// How many spans wait.
    package var count: Int { spans.withLock { $0.count } }

    /// How many spans were dropped because the queue was full.
    package var dropped: UInt64 { droppedCount.load(ordering: .relaxed) }
}
