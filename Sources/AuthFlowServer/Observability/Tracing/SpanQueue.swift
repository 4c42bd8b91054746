import Synchronization

/// The bounded queue finished spans wait in for the exporter. Adding never blocks and never waits for the
/// exporter: when the queue is full the span is dropped and counted (``dropped``).
package final class SpanQueue: Sendable {
    /// At most this many spans wait (the OpenTelemetry batch processor's default queue size).
    package let capacity: Int
    private let spans: Mutex<[SpanRecord]>
    private let droppedCount = Atomic<UInt64>(0)
    private let refusing = Atomic<Bool>(false)

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

    /// Whether a span finishing now finds room (and the exporter is not backing off, ``refuse(_:)``); when not, it
    /// counts as dropped at once, so that its caller builds nothing it would drop anyway. (One admitted may still
    /// be dropped by ``push(_:)`` when others filled the queue in between.)
    package func admitting() -> Bool {
        let room = !refusing.load(ordering: .relaxed) && spans.withLock { $0.count < capacity }
        if !room { droppedCount.add(1, ordering: .relaxed) }
        return room
    }

    /// Makes ``admitting()`` refuse every span (`true`), while the exporter backs off from a collector that is
    /// down, or admit them again (`false`).
    package func refuse(_ refused: Bool) {
        refusing.store(refused, ordering: .relaxed)
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
