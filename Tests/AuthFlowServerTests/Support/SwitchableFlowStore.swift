import AuthFlow
import Foundation
import Synchronization

/// An in-memory flow store a test can take down: while `isDown`, every operation fails with `backend_failure`.
final class SwitchableFlowStore: FlowStore {
    private let spent = InMemoryFlowStore(clock: SystemClock())
    private let down = Mutex(false)

    var isDown: Bool {
        get { down.withLock { $0 } }
        set { down.withLock { $0 = newValue } }
    }

    func markSpent(state: String, until: Date) async throws(FlowStoreError) -> Bool {
        guard !isDown else { throw FlowStoreError(.backendFailure, "expected the test flow store up, found it down") }
        return try await spent.markSpent(state: state, until: until)
    }

    func checkHealth() async throws(FlowStoreError) {
        guard !isDown else { throw FlowStoreError(.backendFailure, "expected the test flow store up, found it down") }
    }
}
