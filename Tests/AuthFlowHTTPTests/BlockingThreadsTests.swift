import AuthFlowHTTP
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
        let port = try server.start()
        let response: String? = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: HTTPServerStarvationTests.blockingGet(port: port, path: "/")) }
                .start()
        }
        await server.stop()
        #expect(response?.hasSuffix("before false, after true") == true)
    }
}
