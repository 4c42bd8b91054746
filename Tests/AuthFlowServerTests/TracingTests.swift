import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization
import Testing

@testable import AuthFlowServer

/// Answers every request with `status` (or throws `failure`), keeping what it was sent.
final class RecordingHTTPClient: HTTPClient {
    let sent = Mutex<[HTTPClientRequest]>([])
    let status: Int
    let failure: HTTPClientError?

    init(status: Int = 200, failure: HTTPClientError? = nil) {
        self.status = status
        self.failure = failure
    }

    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        sent.withLock { $0.append(request) }
        if let failure { throw failure }
        return HTTPClientResponse(status: status, headers: [:], body: [])
    }

    var requests: [HTTPClientRequest] { sent.withLock { $0 } }
}

/// Counts up from 1 in every byte it hands out: ids are predictable and never all zero.
final class CountingRandom: SecureRandom {
    let next = Mutex<UInt8>(0)
    func bytes(_ count: Int) -> [UInt8] {
        next.withLock { value in
            (0..<count).map { _ in
                value &+= 1
                return value == 0 ? 1 : value
            }
        }
    }
}

/// The W3C `traceparent` parser, the OTLP protobuf encoder, the bounded queue and the exporter, driven directly.
@Suite struct TracingTests {
    let traceID = (1...16).map { UInt8($0) }
    let spanID = (0xA1...0xA8).map { UInt8($0) }

    // MARK: traceparent

    @Test func parsesAWellFormedTraceparentAndWritesItBack() throws {
        let header = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let context = try #require(
            TraceContext.parse(traceparent: header, tracestate: "congo=t61rcWkgMzE,rojo=00f067aa"))
        #expect(TraceContext.hex(context.traceID) == "0af7651916cd43dd8448eb211c80319c")
        #expect(TraceContext.hex(context.spanID) == "b7ad6b7169203331")
        #expect(context.flags == 1)
        #expect(context.state == "congo=t61rcWkgMzE,rojo=00f067aa")
        #expect(context.traceparent == header)
    }

    @Test func refusesMalformedTraceparents() {
        let good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let malformed = [
            "",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",  // all-zero trace id
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",  // all-zero span id
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  // version ff is invalid
            good + "-extra",  // version 00 has exactly 55 characters
            good + "0",
            String(good.dropLast()),  // too short
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",  // uppercase hex
            "00-0af7651916cd43dd8448eb211c80319-cb7ad6b7169203331-01",  // dash in the wrong place
            "00-0af7651916cd43dd8448eb211c80319g-b7ad6b7169203331-01",  // not hex
            "00_0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331_01",
            "0x-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0z",
            "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x",  // a later version's extra part needs a dash
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b71692033é-01",
            String(repeating: "0", count: 600),
        ]
        for header in malformed {
            #expect(TraceContext.parse(traceparent: header, tracestate: nil) == nil, "\(header)")
        }
        #expect(TraceContext.parse(traceparent: nil, tracestate: "a=b") == nil)
    }

    @Test func acceptsALaterVersionReadingItsFirstFields() throws {
        let context = try #require(
            TraceContext.parse(
                traceparent: "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-what-comes-later",
                tracestate: nil))
        #expect(TraceContext.hex(context.spanID) == "b7ad6b7169203331")
        #expect(context.traceparent.hasPrefix("00-"))
    }

    @Test func dropsAMalformedTracestateButKeepsTheParent() throws {
        let header = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
        for state in [
            "no-equals", "Upper=1", "a=b,c", "=value", "k=va,lue=", String(repeating: "a=b,", count: 40), "k=\u{7F}",
        ] {
            let context = try #require(TraceContext.parse(traceparent: header, tracestate: state), "\(state)")
            #expect(context.state == nil, "\(state)")
            #expect(context.flags == 0)
        }
        #expect(TraceContext.parse(traceparent: header, tracestate: "a=1,,b@vendor=2 ")?.state == "a=1,,b@vendor=2 ")
    }

    @Test func mutatedHeadersNeverCrashAndWhatIsAcceptedRoundTrips() {
        // A deterministic generator: every run tries the same 20,000 mutations of a valid header.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let valid = Array("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".utf8)
        let alphabet = Array("0123456789abcdefABCDEF-xz \u{0}".utf8) + [0xC3, 0xA9, 0xFF]
        for _ in 0..<20_000 {
            var bytes = valid
            for _ in 0..<(1 + Int(next() % 3)) {
                let index = Int(next() % UInt64(bytes.count))
                switch next() % 3 {
                case 0: bytes[index] = alphabet[Int(next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet[Int(next() % UInt64(alphabet.count))], at: index)
                }
            }
            let header = String(decoding: bytes, as: UTF8.self)
            guard let context = TraceContext.parse(traceparent: header, tracestate: header) else { continue }
            #expect(context.traceID.count == 16 && context.spanID.count == 8)
            #expect(context.traceID.contains { $0 != 0 } && context.spanID.contains { $0 != 0 })
            #expect(TraceContext.parse(traceparent: context.traceparent, tracestate: nil)?.traceID == context.traceID)
            #expect(header.hasPrefix("00-") ? header == context.traceparent : true)
        }
    }

    // MARK: protobuf

    @Test func writesVarintsAndFixedWidthFields() {
        var writer = ProtobufWriter()
        writer.uint(1, 300)
        writer.uint(2, 0)  // a default: left out
        writer.int(3, -1)
        writer.fixed64(4, 0x0102_0304_0506_0708)
        writer.fixed32(16, 1)
        writer.string(5, "hi")
        writer.string(6, "")
        #expect(
            writer.bytes == [
                0x08, 0xAC, 0x02,
                0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
                0x21, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
                0x85, 0x01, 0x01, 0x00, 0x00, 0x00,
                0x2A, 0x02, 0x68, 0x69,
            ])
    }

    @Test func encodesAnExportRequestByteForByte() {
        let span = SpanRecord(
            context: TraceContext(traceID: traceID, spanID: spanID), parentSpanID: nil, name: "n", kind: .server,
            start: 1, end: 2)
        let encoded = OTLPEncoder.encode([span], serviceName: "s")
        let spanBytes: [UInt8] =
            [0x0A, 0x10] + traceID + [0x12, 0x08] + spanID + [0x2A, 0x01, 0x6E, 0x30, 0x02]
            + [0x39, 1, 0, 0, 0, 0, 0, 0, 0] + [0x41, 2, 0, 0, 0, 0, 0, 0, 0] + [0x85, 0x01, 1, 0, 0, 0]
        #expect(spanBytes.count == 57)
        let keyValue: [UInt8] = [0x0A, 0x0C] + Array("service.name".utf8) + [0x12, 0x03, 0x0A, 0x01, 0x73]
        let resource: [UInt8] = [0x0A, 0x15, 0x0A, 0x13] + keyValue
        let scopeSpans: [UInt8] = [0x0A, 0x0A, 0x0A, 0x08] + Array("authflow".utf8) + [0x12, 0x39] + spanBytes
        let resourceSpans: [UInt8] = resource + [0x12, 0x47] + scopeSpans
        #expect(encoded == [0x0A, 0x60] + resourceSpans)
    }

    @Test func encodesAttributesEventsParentAndStatusThatDecodeBack() throws {
        let span = SpanRecord(
            context: TraceContext(traceID: traceID, spanID: spanID, flags: 1, state: "a=b"),
            parentSpanID: [9, 9, 9, 9, 9, 9, 9, 9],
            name: "GET /healthz", kind: .client, start: 1_796_000_000_000_000_000, end: 1_796_000_000_500_000_000,
            attributes: [
                SpanAttribute("http.response.status_code", .int(503)), SpanAttribute("ok", .bool(false)),
                SpanAttribute("flow.checks", .strings(["state", "nonce"])),
            ],
            events: [SpanEvent(name: "id_token.verified", time: 1_796_000_000_100_000_000)], status: .error)
        let request = try ProtobufMessage(OTLPEncoder.encode([span], serviceName: "authflow"))
        let decoded = try request.message(1).message(2).message(2)
        #expect(try decoded.bytes(1) == traceID)
        #expect(try decoded.bytes(2) == spanID)
        #expect(try decoded.string(3) == "a=b")
        #expect(try decoded.bytes(4) == [9, 9, 9, 9, 9, 9, 9, 9])
        #expect(try decoded.string(5) == "GET /healthz")
        #expect(decoded.varint(6) == 3)
        #expect(decoded.fixed(7) == 1_796_000_000_000_000_000)
        #expect(decoded.fixed(8) == 1_796_000_000_500_000_000)
        let attributes = try decoded.messages(9)
        #expect(attributes.count == 3)
        #expect(try attributes[0].string(1) == "http.response.status_code")
        #expect(try attributes[0].message(2).varint(3) == 503)
        #expect(try attributes[1].message(2).varint(2) == 0)  // false written explicitly
        #expect(try attributes[1].message(2).fields.contains { $0.number == 2 })
        let array = try attributes[2].message(2).message(5).messages(1)
        #expect(try array.map { try $0.string(1) } == ["state", "nonce"])
        let event = try decoded.message(11)
        #expect(try event.string(2) == "id_token.verified")
        #expect(event.fixed(1) == 1_796_000_000_100_000_000)
        #expect(try decoded.message(15).varint(3) == 2)
        #expect(decoded.fixed(16) == 1)
    }

    // MARK: queue and exporter

    func span(_ number: UInt8) -> SpanRecord {
        SpanRecord(
            context: TraceContext(traceID: traceID, spanID: [0, 0, 0, 0, 0, 0, 0, number]), parentSpanID: nil,
            name: "span \(number)", kind: .internalOperation, start: 1, end: 2)
    }

    @Test func aFullQueueDropsAndCountsInsteadOfWaiting() {
        let queue = SpanQueue(capacity: 2)
        #expect(queue.push(span(1)))
        #expect(queue.push(span(2)))
        #expect(!queue.push(span(3)))
        #expect(!queue.push(span(4)))
        #expect(queue.dropped == 2)
        #expect(queue.count == 2)
        #expect(queue.take(upTo: 1).map(\.name) == ["span 1"])
        #expect(queue.push(span(5)))
        #expect(queue.take(upTo: 10).map(\.name) == ["span 2", "span 5"])
        #expect(queue.take(upTo: 10).isEmpty)
        #expect(queue.dropped == 2)
    }

    @Test func exportsBatchesAsProtobufPostsWithATimeout() async throws {
        let client = RecordingHTTPClient(status: 200)
        let settings = TracingSettings(endpoint: "http://127.0.0.1:4318/v1/traces", serviceName: "svc", timeout: 3)
        let queue = SpanQueue(capacity: 2000)
        let exporter = TraceExporter(settings: settings, queue: queue, httpClient: client)
        for number in 0..<(TraceExporter.batchSize + 3) { queue.push(span(UInt8(truncatingIfNeeded: number))) }
        #expect(await exporter.exportPending() == 2)
        let sent = client.requests
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0.method == "POST" && $0.url == settings.endpoint && $0.timeout == 3 })
        #expect(sent.allSatisfy { $0.headers["Content-Type"] == "application/x-protobuf" })
        let first = try ProtobufMessage(try #require(sent.first?.body)).message(1).message(2).messages(2)
        #expect(first.count == TraceExporter.batchSize)
        #expect(exporter.exportedSpans == UInt64(TraceExporter.batchSize + 3))
        #expect(exporter.failedExports == 0)
        #expect(await exporter.exportPending() == 0)
    }

    @Test func countsFailedExportsAndTheirSpans() async {
        let settings = TracingSettings(endpoint: "http://127.0.0.1:9/v1/traces")
        for client in [
            RecordingHTTPClient(failure: HTTPClientError(code: .connectionFailed, message: "refused")),
            RecordingHTTPClient(status: 503),
        ] {
            let queue = SpanQueue()
            let exporter = TraceExporter(settings: settings, queue: queue, httpClient: client)
            queue.push(span(1))
            queue.push(span(2))
            await exporter.exportPending()
            queue.push(span(3))
            await exporter.exportPending()
            #expect(exporter.failedExports == 2)
            #expect(exporter.failedSpans == 3)
            #expect(exporter.exportedSpans == 0)
        }
    }

    // MARK: spans of the server

    func makeServer(tracer: Tracer) -> SignInServer {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_000_000))
        let options = SignInServer.Options(
            publicURL: "https://app.example.com", secret: Secret(String(repeating: "s", count: 40)))
        return SignInServer(
            options: options, providers: [], stores: .memory(clock: clock), httpClient: RecordingHTTPClient(),
            clock: clock, metrics: nil, tracer: tracer)
    }

    func makeTracer(client: any HTTPClient = RecordingHTTPClient(), capacity: Int = 2048) -> Tracer {
        Tracer(
            settings: TracingSettings(endpoint: "http://127.0.0.1:4318/v1/traces"),
            clock: ManualClock(Date(timeIntervalSince1970: 1_796_000_000)), random: CountingRandom(),
            httpClient: client, queueCapacity: capacity)
    }

    func request(_ path: String, traceparent: String?, viaTrustedProxy: Bool) -> HTTPServerRequest {
        var headers: HTTPHeaders = ["User-Agent": "TestAgent/1.0"]
        if let traceparent {
            headers["traceparent"] = traceparent
            headers["tracestate"] = "vendor=value"
        }
        return HTTPServerRequest(
            method: "GET", path: path, query: [("secret_query", "do-not-record")], headers: headers,
            remoteAddress: "203.0.113.7", viaTrustedProxy: viaTrustedProxy)
    }

    @Test func continuesTheTraceOfATrustedProxyOnly() async throws {
        let tracer = makeTracer()
        let server = makeServer(tracer: tracer)
        let incoming = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        _ = await server.handle(request("/healthz", traceparent: incoming, viaTrustedProxy: true))
        _ = await server.handle(request("/healthz", traceparent: incoming, viaTrustedProxy: false))
        _ = await server.handle(request("/healthz", traceparent: "00-zz-b7ad6b7169203331-01", viaTrustedProxy: true))
        let spans = tracer.queue.take(upTo: 10)
        #expect(spans.count == 3)
        let continued = spans[0]
        #expect(TraceContext.hex(continued.context.traceID) == "0af7651916cd43dd8448eb211c80319c")
        #expect(continued.parentSpanID.map(TraceContext.hex) == "b7ad6b7169203331")
        #expect(continued.context.state == "vendor=value")
        #expect(continued.kind == .server)
        for fresh in spans[1...] {
            #expect(TraceContext.hex(fresh.context.traceID) != "0af7651916cd43dd8448eb211c80319c")
            #expect(fresh.parentSpanID == nil)
            #expect(fresh.context.state == nil)
        }
        #expect(spans[1].context.traceID != spans[2].context.traceID)
    }

    @Test func theServerSpanCarriesTheHTTPConventionsAndNoQuery() async throws {
        let tracer = makeTracer()
        let server = makeServer(tracer: tracer)
        let response = await server.handle(request("/auth/nobody/callback", traceparent: nil, viaTrustedProxy: false))
        let span = try #require(tracer.queue.take(upTo: 1).first)
        var attributes: [String: SpanAttributeValue] = [:]
        for attribute in span.attributes { attributes[attribute.key] = attribute.value }
        #expect(span.name == "GET /auth/{provider}/callback")
        #expect(attributes["http.request.method"] == .string("GET"))
        #expect(attributes["url.path"] == .string("/auth/nobody/callback"))
        #expect(attributes["http.route"] == .string("/auth/{provider}/callback"))
        #expect(attributes["http.response.status_code"] == .int(Int64(response.status)))
        #expect(attributes["server.address"] == .string("app.example.com"))
        #expect(attributes["server.port"] == .int(443))
        #expect(attributes["url.scheme"] == .string("https"))
        #expect(attributes["client.address"] == .string("203.0.113.7"))
        #expect(attributes["user_agent.original"] == .string("TestAgent/1.0"))
        #expect(attributes["authflow.request_id"] == response.headers["X-Request-Id"].map { .string($0) })
        #expect(attributes["error.type"] != nil)
        let encoded = String(decoding: OTLPEncoder.encode([span], serviceName: "authflow"), as: UTF8.self)
        #expect(!encoded.contains("do-not-record"))
    }

    @Test func aProviderCallIsAChildClientSpanSendingItsTraceparent() async throws {
        let tracer = makeTracer()
        let base = RecordingHTTPClient(status: 200)
        let client = TracingHTTPClient(base: base, tracer: tracer)
        let parent = tracer.open("GET /auth/{provider}/callback", kind: .server, parent: nil, at: tracer.clock.now())
        _ = try await ActiveSpan.$current.withValue(parent) {
            try await client.send(
                HTTPClientRequest(method: "GET", url: "https://provider.example/userinfo?access_token=do-not-record"))
        }
        let span = try #require(tracer.queue.take(upTo: 1).first)
        #expect(span.kind == .client)
        #expect(span.context.traceID == parent.context.traceID)
        #expect(span.parentSpanID == parent.context.spanID)
        let sent = try #require(base.requests.first)
        #expect(sent.headers["traceparent"] == span.context.traceparent)
        let encoded = String(decoding: OTLPEncoder.encode([span], serviceName: "authflow"), as: UTF8.self)
        #expect(!encoded.contains("do-not-record"))
        #expect(encoded.contains("https://provider.example/userinfo"))
    }

    @Test func anUnsampledParentIsPropagatedButNotExported() async throws {
        let tracer = makeTracer()
        let server = makeServer(tracer: tracer)
        _ = await server.handle(
            request(
                "/healthz", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00",
                viaTrustedProxy: true))
        #expect(tracer.queue.count == 0)
    }

    @Test func aFullQueueNeverHoldsARequestUp() async throws {
        let tracer = makeTracer(capacity: 1)
        let server = makeServer(tracer: tracer)
        for _ in 0..<5 { _ = await server.handle(request("/healthz", traceparent: nil, viaTrustedProxy: false)) }
        #expect(tracer.queue.count == 1)
        #expect(tracer.queue.dropped == 4)
    }
}

/// A minimal protobuf reader for the tests: a message's fields by number, nested messages decoded on demand.
struct ProtobufMessage {
    struct Field {
        let number: Int
        let wireType: UInt8
        let value: UInt64
        let payload: [UInt8]
    }

    struct Malformed: Error {}

    let fields: [Field]

    init(_ bytes: [UInt8]) throws {
        var fields: [Field] = []
        var index = 0
        func varint() throws -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count, shift < 64 else { throw Malformed() }
                let byte = bytes[index]
                index += 1
                result |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return result }
                shift += 7
            }
        }
        func fixed(_ count: Int) throws -> UInt64 {
            guard index + count <= bytes.count else { throw Malformed() }
            var result: UInt64 = 0
            for offset in 0..<count { result |= UInt64(bytes[index + offset]) << UInt64(8 * offset) }
            index += count
            return result
        }
        while index < bytes.count {
            let key = try varint()
            let number = Int(key >> 3)
            let type = UInt8(key & 7)
            switch type {
            case 0: fields.append(Field(number: number, wireType: type, value: try varint(), payload: []))
            case 1: fields.append(Field(number: number, wireType: type, value: try fixed(8), payload: []))
            case 5: fields.append(Field(number: number, wireType: type, value: try fixed(4), payload: []))
            case 2:
                let length = Int(try varint())
                guard index + length <= bytes.count else { throw Malformed() }
                fields.append(
                    Field(number: number, wireType: type, value: 0, payload: Array(bytes[index..<index + length])))
                index += length
            default: throw Malformed()
            }
        }
        self.fields = fields
    }

    func messages(_ number: Int) throws -> [ProtobufMessage] {
        try fields.filter { $0.number == number && $0.wireType == 2 }.map { try ProtobufMessage($0.payload) }
    }

    func message(_ number: Int) throws -> ProtobufMessage {
        guard let first = try messages(number).first else { throw Malformed() }
        return first
    }

    func bytes(_ number: Int) throws -> [UInt8] {
        guard let field = fields.first(where: { $0.number == number && $0.wireType == 2 }) else { throw Malformed() }
        return field.payload
    }

    func string(_ number: Int) throws -> String { String(decoding: try bytes(number), as: UTF8.self) }

    func varint(_ number: Int) -> UInt64? { fields.first { $0.number == number && $0.wireType == 0 }?.value }

    func fixed(_ number: Int) -> UInt64? {
        fields.first { $0.number == number && ($0.wireType == 1 || $0.wireType == 5) }?.value
    }
}
