import Foundation

/// Waiting for a condition in tests: the one place a test pauses (scripts/check-test-sleeps.sh allows no
/// other sleep under Tests/).
///
/// A test never waits for time to pass: it waits for what it needs (a server to listen, a connection to be
/// counted, a thread to block, a child to exit), checking now and then, goes on the moment it holds, and fails
/// only after a deadline generous enough that a busy machine cannot reach it. Code with an injected clock is
/// moved on with a manual clock instead, and a stand-in that must hold something open waits on a `Latch`.
public enum Waiting {
    /// The pause between two checks of a condition when the caller names none.
    public static let defaultPoll: Duration = .milliseconds(10)

    /// The first value `probe` gives within `deadline` (checked at once, then after every `poll`), or nil
    /// once the deadline passed or the task was cancelled.
    public static func value<T>(
        within deadline: Duration, poll: Duration = defaultPoll, _ probe: () async throws -> T?
    ) async rethrows -> T? {
        let end = ContinuousClock.now.advanced(by: deadline)
        while true {
            if let value = try await probe() { return value }
            guard ContinuousClock.now < end, !Task.isCancelled else { return nil }
            try? await Task.sleep(for: poll)
        }
    }

    /// The first value `probe` gives within `deadline`, blocking the calling thread between checks; nil once
    /// the deadline passed. Only for a thread that may block (a test's own `Thread`, a synchronous API of the
    /// test support), never from async code.
    public static func valueBlocking<T>(
        within deadline: Duration, poll: Duration = defaultPoll, _ probe: () throws -> T?
    ) rethrows -> T? {
        let end = ContinuousClock.now.advanced(by: deadline)
        let pause = Double(poll.components.seconds) + Double(poll.components.attoseconds) / 1e18
        while true {
            if let value = try probe() { return value }
            guard ContinuousClock.now < end else { return nil }
            Thread.sleep(forTimeInterval: pause)
        }
    }
}

/// A condition a test waited for did not hold by the deadline.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let description: String
}

/// Whether `condition` holds within `deadline` (checked at once, then after every `poll`); false once the
/// deadline passed, for a caller that reports the failure itself (`#expect(await eventually { … })`).
public func eventually(
    within deadline: Duration = .seconds(30), poll: Duration = Waiting.defaultPoll,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    try await Waiting.value(within: deadline, poll: poll) { try await condition() ? true : nil } ?? false
}

/// The blocking form of ``eventually(within:poll:_:)``, for a thread that may block (never async code).
public func eventuallyBlocking(
    within deadline: Duration = .seconds(30), poll: Duration = Waiting.defaultPoll, _ condition: () throws -> Bool
) rethrows -> Bool {
    try Waiting.valueBlocking(within: deadline, poll: poll) { try condition() ? true : nil } ?? false
}

/// Waits until `condition` holds (checked at once, then after every `poll`).
/// - Throws: `WaitTimedOut` naming `what` once `deadline` passed; `CancellationError` when the task is
///   cancelled; whatever `condition` throws.
public func waitUntil(
    _ what: @autoclosure () -> String, deadline: Duration = .seconds(30), poll: Duration = Waiting.defaultPoll,
    _ condition: () async throws -> Bool
) async throws {
    _ = try await waitFor(what(), deadline: deadline, poll: poll) { try await condition() ? true : nil }
}

/// Waits until `probe` gives a value (checked at once, then after every `poll`) and returns it.
/// - Throws: `WaitTimedOut` naming `what` once `deadline` passed; `CancellationError` when the task is
///   cancelled; whatever `probe` throws.
public func waitFor<T>(
    _ what: @autoclosure () -> String, deadline: Duration = .seconds(30), poll: Duration = Waiting.defaultPoll,
    _ probe: () async throws -> T?
) async throws -> T {
    if let value = try await Waiting.value(within: deadline, poll: poll, probe) { return value }
    try Task.checkCancellation()
    throw WaitTimedOut(description: "expected \(what()) within \(deadline), found it still missing")
}
