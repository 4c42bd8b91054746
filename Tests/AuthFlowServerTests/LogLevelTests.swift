import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization
import Testing

@testable import AuthFlowServer

/// Records every event it is handed, whatever its level, and says which levels it wants.
private final class ThresholdLogger: ServerLogger {
    let minimum: ServerLogLevel
    let events = Mutex<[(ServerLogLevel, String, [String: String])]>([])
    init(minimum: ServerLogLevel) { self.minimum = minimum }
    func log(_ level: ServerLogLevel, _ message: String, metadata: [String: String]) {
        events.withLock { $0.append((level, message, metadata)) }
    }
    func isEnabled(_ level: ServerLogLevel) -> Bool { level >= minimum }
    var recorded: [(ServerLogLevel, String, [String: String])] { events.withLock { $0 } }
}

/// Events below a logger's level are never built nor handed over; the others are unchanged.
@Suite struct LogLevelTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_796_000_000))

    func makeServer(logger: any ServerLogger) -> SignInServer {
        let options = SignInServer.Options(
            publicURL: "http://localhost:8080", secret: Secret(String(repeating: "s", count: 40)))
        return SignInServer(
            options: options, providers: [], stores: .memory(clock: clock), httpClient: CurlHTTPClient(),
            clock: clock, logger: logger)
    }

    func get(_ path: String) -> HTTPServerRequest {
        HTTPServerRequest(method: "GET", path: path, remoteAddress: "127.0.0.1")
    }

    @Test func handsOverNoEventBelowTheLoggersLevel() async throws {
        let logger = ThresholdLogger(minimum: .info)
        let server = makeServer(logger: logger)
        // A check's request line is a debug event: never handed to an info logger.
        #expect(await server.handle(get("/auth/check")).status == 401)
        #expect(logger.recorded.isEmpty)
        // A refused logout's line is an info event, with every field.
        let response = await server.handle(get("/auth/logout"))
        #expect(response.status == 405)
        let line = try #require(logger.recorded.last)
        #expect(line.0 == .info && line.1 == "request")
        #expect(line.2["request_id"] == response.headers["X-Request-Id"])
        #expect(line.2["route"] == "/auth/logout")
        #expect(line.2["status"] == "405")
        #expect(line.2["code"] == "method_not_allowed")
        #expect(line.2["duration_ms"] == "0.0")
        #expect(logger.recorded.allSatisfy { $0.0 >= .info })
    }

    @Test func handsOverDebugEventsToADebugLogger() async throws {
        let logger = ThresholdLogger(minimum: .debug)
        let server = makeServer(logger: logger)
        let response = await server.handle(get("/auth/check"))
        let line = try #require(logger.recorded.last)
        #expect(line.0 == .debug && line.1 == "request")
        #expect(line.2["route"] == "/auth/check")
        #expect(line.2["status"] == "401")
        #expect(line.2["request_id"] == response.headers["X-Request-Id"])
    }

    @Test func loggersReportTheLevelsTheyWrite() {
        #expect(!SilentLogger().isEnabled(.error))
        let standard = StandardErrorLogger(minimumLevel: .warning)
        #expect(!standard.isEnabled(.info) && standard.isEnabled(.warning) && standard.isEnabled(.error))
        let json = JSONLineLogger(minimumLevel: .info, write: { _ in })
        #expect(!json.isEnabled(.debug) && json.isEnabled(.info))
        // A logger that does not say records every level.
        #expect(RecordingLogger().isEnabled(.debug))
    }

    @Test func writesWholeLinesToTheDescriptorWithoutBuffering() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let line = "authflow: info request " + String(repeating: "k=v ", count: 2000) + "\n"
        StandardErrorWriter.write(line, to: ends[1])
        close(ends[1])
        // Everything is in the pipe once `write` returns: nothing waits in a buffer of ours.
        var read: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(ends[0], $0.baseAddress, $0.count) }
            if count <= 0 { break }
            read += chunk[0..<count]
        }
        #expect(String(decoding: read, as: UTF8.self) == line)
    }
}
