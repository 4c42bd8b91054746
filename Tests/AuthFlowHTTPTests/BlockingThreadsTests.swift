import AuthFlowHTTP
import AuthFlowHTTPServer
import Foundation
import Testing

/// Only the handler threads may block: never Swift's cooperative threads, never libmicrohttpd's polling thread.
@Suite struct BlockingThreadsTests {
    @Test func swiftsCooperativeThreadsMayNotBlock() async {
        let mayBlock = await Task.detached { BlockingThreads.currentThreadMayBlock }.value
        #expect(!mayBlock)
    }

    @Test func aHandlerMayBlockOnlyOnceItWaitedAndMovedToAHandlerThread() async throws {
        let server = HTTPServer(configuration: .init()) { _ in
            // Until it first waits, the handler runs on the polling thread.
            let before = BlockingThreads.currentThreadMayBlock
            try? await Task.sleep(for: .milliseconds(1))
            let after = BlockingThreads.currentThreadMayBlock
            return .text("before \(before), after \(after)")
        }
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
        func mayBlockInside() async -> Bool { await BlockingThreads.run { BlockingThreads.currentThreadMayBlock } }
    }

    @Test func movesACooperativeTaskToAThreadThatMayBlock() async {
        let outside = await Task.detached { BlockingThreads.currentThreadMayBlock }.value
        let inside = await Task.detached { await BlockingThreads.run { BlockingThreads.currentThreadMayBlock } }.value
        #expect(!outside)
        #expect(inside)
    }

    @Test func movesAnActorIsolatedCallerToAThreadThatMayBlock() async {
        #expect(await Caller().mayBlockInside())
    }

    @Test func passesResultsAndTypedErrorsThrough() async {
        struct Refusal: Error, Equatable { let reason: String }
        let value = await BlockingThreads.run { 6 * 7 }
        #expect(value == 42)
        do throws(Refusal) {
            _ = try await BlockingThreads.run { () throws(Refusal) -> Int in throw Refusal(reason: "no") }
            Issue.record("expected the body's error, found a result")
        } catch {
            #expect(error == Refusal(reason: "no"))
        }
    }

    @Test func aHandlersFirstStoreCallFromThePollingThreadRunsOnAHandlerThread() async throws {
        let server = HTTPServer(configuration: .init()) { _ in
            // The handler starts on the polling thread, which may not block; `run` moves it.
            let before = BlockingThreads.currentThreadMayBlock
            let inside = await BlockingThreads.run { BlockingThreads.currentThreadMayBlock }
            return .text("before \(before), inside \(inside)")
        }
        let response = try await BlockingThreadsTests.answer(of: server)
        #expect(response?.hasSuffix("before false, inside true") == true)
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
