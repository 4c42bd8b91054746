import AuthFlowHTTPServer
import AuthFlowHTTPTestSupport
import AuthFlowTestSupport
import Foundation
import Synchronization
import Testing

@testable import AuthFlowHTTP

/// Only the handler threads may block: never Swift's cooperative threads, never libmicrohttpd's polling thread.
@Suite struct BlockingThreadsTests {
    @Test func swiftsCooperativeThreadsMayNotBlock() async {
        let mayBlock = await Task.detached { BlockingThreads.currentThreadMayBlock }.value
        #expect(!mayBlock)
    }

    @Test func aHandlerMayBlockOnlyOnceItWaitedAndMovedToAHandlerThread() async throws {
        let wait = SuspendedConnectionWait()
        let server = wait.attach(
            HTTPServer(configuration: .init()) { _ in
                // Until it first waits, the handler runs on the polling thread.
                let before = BlockingThreads.currentThreadMayBlock
                await wait.untilSuspended()
                let after = BlockingThreads.currentThreadMayBlock
                return .text("before \(before), after \(after)")
            })
        let response = try await Self.answer(of: server)
        #expect(response?.hasSuffix("before false, after true") == true)
    }

    /// Starts `server`, asks it for `/` from a thread of its own (not a task), stops it and returns the body.
    static func answer(of server: HTTPServer) async throws -> String? {
        let port = try server.start()
        let response: String? = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: HTTPServerStarvationTests.blockingGet(port: port, path: "/")) }
                .start()
        }
        await server.stop()
        return response
    }
}

/// `BlockingThreads.run` runs blocking work only on threads that may block, whoever calls it.
@Suite struct BlockingThreadsRunTests {
    actor Caller {
        func mayBlockInside(_ threads: BlockingThreads) async throws -> Bool {
            try await threads.run { BlockingThreads.currentThreadMayBlock }
        }
    }

    @Test func movesACooperativeTaskToAThreadThatMayBlock() async throws {
        let threads = BlockingThreads(threadCount: 1, name: "run-test")
        defer { threads.shutdown() }
        let outside = await Task.detached { BlockingThreads.currentThreadMayBlock }.value
        let inside = try await Task.detached { try await threads.run { BlockingThreads.currentThreadMayBlock } }.value
        #expect(!outside)
        #expect(inside)
    }

    @Test func movesAnActorIsolatedCallerToAThreadThatMayBlock() async throws {
        let threads = BlockingThreads(threadCount: 1, name: "run-test")
        defer { threads.shutdown() }
        #expect(try await Caller().mayBlockInside(threads))
    }

    @Test func passesResultsThrough() async throws {
        let threads = BlockingThreads(threadCount: 1, name: "run-test")
        defer { threads.shutdown() }
        #expect(try await threads.run { 6 * 7 } == 42)
    }

    @Test func aHandlersFirstStoreCallFromThePollingThreadRunsOnAHandlerThread() async throws {
        let threads = BlockingThreads(threadCount: 1, name: "store-test")
        defer { threads.shutdown() }
        let server = HTTPServer(configuration: .init()) { _ in
            // The handler starts on the polling thread, which may not block; `run` moves it.
            let before = BlockingThreads.currentThreadMayBlock
            let inside = (try? await threads.run { BlockingThreads.currentThreadMayBlock }) ?? false
            return .text("before \(before), inside \(inside)")
        }
        let response = try await BlockingThreadsTests.answer(of: server)
        #expect(response?.hasSuffix("before false, inside true") == true)
    }

    @Test func aStoreOperationFromAHandlerThreadRunsRightThereOnTheServersPool() async throws {
        let threads = BlockingThreads(threadCount: 1, name: "store-test")
        defer { threads.shutdown() }
        let wait = SuspendedConnectionWait()
        let server = wait.attach(
            HTTPServer(configuration: .init()) { _ in
                await wait.untilSuspended()
                // On one of the server's threads now: the store's own pool is not asked for a thread.
                let handlerThread = pthread_self()
                let inside = try? await threads.run { (pthread_self(), HandlerExecutor.current === threads.executor) }
                return .text("same \(inside?.0 == handlerThread), store's pool \(inside?.1 ?? true)")
            })
        let response = try await BlockingThreadsTests.answer(of: server)
        #expect(response?.hasSuffix("same true, store's pool false") == true, "\(response ?? "no answer")")
    }
}

/// A pool of blocking threads is owned: `shutdown()` ends its threads and refuses further work with a typed
/// error, and a pool let go by its owner shuts down by itself.
@Suite(.timeLimit(.minutes(1)))
struct BlockingThreadsShutdownTests {
    /// Waits (bounded) until `threads` has no live thread and returns how many are left.
    static func liveThreadsAfterWaiting(_ threads: BlockingThreads) async throws -> Int {
        _ = await eventually { threads.liveThreadCount == 0 }
        return threads.liveThreadCount
    }

    @Test func shutdownEndsEveryThread() async throws {
        let threads = BlockingThreads(threadCount: 3, name: "shutdown-test")
        #expect(try await threads.run { 1 } == 1)
        #expect(threads.liveThreadCount == 3)
        threads.shutdown()
        #expect(threads.isShutDown)
        #expect(try await Self.liveThreadsAfterWaiting(threads) == 0)
    }

    @Test func workAfterShutdownIsRefusedWithATypedError() async throws {
        let threads = BlockingThreads(threadCount: 1, name: "shutdown-test")
        threads.shutdown()
        let ran = Mutex(false)
        do throws(BlockingThreadsError) {
            _ = try await threads.run { ran.withLock { $0 = true } }
            Issue.record("expected the shut-down pool to refuse the work, found it ran")
        } catch {
            #expect(error.code == .shutDown)
        }
        #expect(!ran.withLock { $0 })
    }

    @Test func aTaskStillPreferringAShutDownPoolRunsToItsEnd() async throws {
        let threads = BlockingThreads(threadCount: 1, name: "shutdown-test")
        let executor = threads.executor
        threads.shutdown()
        _ = try await Self.liveThreadsAfterWaiting(threads)
        // No thread is left, yet a job queued now gets one (which ends again once idle).
        let value = await withTaskExecutorPreference(executor) { () async -> Int in
            await HandlerWait.onAnotherThread()
            return 7
        }
        #expect(value == 7)
        #expect(try await Self.liveThreadsAfterWaiting(threads) == 0)
    }

    @Test func aPoolLetGoByItsOwnerShutsDown() async throws {
        var threads: BlockingThreads? = BlockingThreads(threadCount: 2, name: "owned-test")
        let executor = try #require(threads?.executor)
        #expect(executor.liveThreadCount == 2)
        threads = nil
        _ = await eventually { executor.liveThreadCount == 0 }
        #expect(executor.hasShutDown)
        #expect(executor.liveThreadCount == 0)
    }

    @Test func aServerReleasedEndsTheThreadsItOwns() async throws {
        let wait = SuspendedConnectionWait()
        var server: HTTPServer? = wait.attach(
            HTTPServer(configuration: .init()) { _ in
                await wait.untilSuspended()
                return .text("ok")
            })
        let executor = try #require(server?.blockingThreads.executor)
        _ = try await BlockingThreadsTests.answer(of: try #require(server))
        #expect(executor.liveThreadCount > 0)
        server = nil
        _ = await eventually { executor.liveThreadCount == 0 }
        #expect(executor.liveThreadCount == 0)
    }

    @Test func aServerLeavesThreadsPassedInRunning() async throws {
        let threads = BlockingThreads(threadCount: 1, name: "shared-test")
        defer { threads.shutdown() }
        var server: HTTPServer? = HTTPServer(configuration: .init(), blockingThreads: threads) { _ in .text("ok") }
        #expect(server?.blockingThreads === threads)
        server = nil
        #expect(!threads.isShutDown)
        #expect(try await threads.run { 2 } == 2)
    }
}

/// An immediate handler answers a request at once on the polling thread, with no task; when it declines, the
/// handler answers.
@Suite struct HTTPServerImmediateHandlerTests {
    @Test func answersOnThePollingThreadWithoutATaskOrLeavesTheRequestToTheHandler() async throws {
        let server = HTTPServer(
            configuration: .init(),
            immediate: { request in
                guard request.path == "/now" else { return nil }
                let inTask = withUnsafeCurrentTask { $0 != nil }
                return .text("at once, in a task \(inTask), may block \(BlockingThreads.currentThreadMayBlock)")
            },
            handler: { request in .text("handler for \(request.path)") })
        let port = try server.start()
        let answers: [String?] = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: [
                    HTTPServerStarvationTests.blockingGet(port: port, path: "/now"),
                    HTTPServerStarvationTests.blockingGet(port: port, path: "/later"),
                ])
            }.start()
        }
        await server.stop()
        #expect(answers[0]?.hasSuffix("at once, in a task false, may block false") == true)
        #expect(answers[1]?.hasSuffix("handler for /later") == true)
    }
}
