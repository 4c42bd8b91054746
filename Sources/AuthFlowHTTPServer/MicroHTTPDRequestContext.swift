import AuthFlowHTTP
internal import CMicroHTTPD
import Synchronization

/// What the server knows about one request between libmicrohttpd's first call for it and its
/// completion notice. Request data is touched only on the libmicrohttpd thread serving the
/// connection; the response slot is shared with the handler's task, under a `Mutex`.
final class MicroHTTPDRequestContext: @unchecked Sendable {
    let connection: OpaquePointer
    let method: String
    let rawURL: String
    let headers: HTTPHeaders
    let query: [(String, String)]
    let remoteAddress: String
    let viaTrustedProxy: Bool

    var body: [UInt8] = []
    /// The largest body this request's route accepts (decided at the first call).
    var bodyLimit = 0
    /// Whether the handler may start on the polling thread (the route's policy).
    var startsOnPollingThread = true
    /// The route's answer to a body over its limit, if it has its own.
    var tooLargeResponse: HTTPServerResponse?
    var bodyTooLarge = false
    var discardedBytes = 0
    var handlerStarted = false
    var responded = false
    private let answer = Mutex(Answer())

    /// The response slot and whether the connection had to be suspended to wait for it.
    private struct Answer {
        var response: HTTPServerResponse?
        var suspended = false
    }

    init(connection: OpaquePointer, method: String, rawURL: String, trustedProxies: [IPNetwork]) {
        self.connection = connection
        self.method = method
        self.rawURL = rawURL
        self.headers = Self.headers(of: connection)
        self.query = Self.values(of: connection, kind: MHD_ValueKind.GET_ARGUMENT_KIND).map { pair in
            // libmicrohttpd already turned `+` into a space; escapes are still intact.
            (FormURLEncoding.unescape(pair.0), FormURLEncoding.unescape(pair.1))
        }
        // The connection's entry already holds its peer address and whether it is a trusted proxy: no
        // address formatting per request.
        let peer: String
        let trusted: Bool
        if let context = af_mhd_socket_context(connection) {
            let entry = Unmanaged<MicroHTTPDConnectionTable.Entry>.fromOpaque(context).takeUnretainedValue()
            peer = entry.client
            trusted = entry.exempt
        } else {
            let text = Self.peerAddress(of: connection)
            peer = IPNetwork.canonical(text) ?? text
            trusted = ForwardedClient.isTrusted(peer, trustedProxies)
        }
        remoteAddress =
            trusted
            ? ForwardedClient.address(
                peer: peer, forwardedFor: headers.values("X-Forwarded-For"), trusted: trustedProxies)
            : peer
        viaTrustedProxy = trusted
    }

    private static func peerAddress(of connection: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let status = buffer.withUnsafeMutableBufferPointer { pointer in
            af_mhd_client_address(connection, pointer.baseAddress, socklen_t(pointer.count))
        }
        return status == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }

    /// Stores the handler's response. Returns `true` when the connection is suspended and must be
    /// resumed to send it; `false` while the polling thread is still inside `access` for this
    /// request (it takes the response itself in ``responseOrSuspend()``).
    func finish(with response: HTTPServerResponse) -> Bool {
        answer.withLock { answer in
            answer.response = response
            return answer.suspended
        }
    }

    /// On the polling thread, after the handler ran inline as far as it could: its response, or
    /// `nil` after suspending the connection (under the same lock as ``finish(with:)``, so a
    /// handler finishing on another thread resumes a connection that is already suspended).
    func responseOrSuspend() -> HTTPServerResponse? {
        answer.withLock { answer in
            if let response = answer.response {
                answer.response = nil
                return response
            }
            answer.suspended = true
            MHD_suspend_connection(connection)
            return nil
        }
    }

    /// Takes the stored response, if any (when libmicrohttpd calls `access` after a resume).
    func takeResponse() -> HTTPServerResponse? {
        answer.withLock { answer in
            defer { answer.response = nil }
            return answer.response
        }
    }

    /// The request value handed to the handler.
    func request() -> HTTPServerRequest {
        HTTPServerRequest(
            method: method, path: rawURL, query: query, headers: headers, body: body, remoteAddress: remoteAddress,
            viaTrustedProxy: viaTrustedProxy)
    }

    /// The request's header fields, collected straight into the headers value the handler gets, with room for a
    /// browser's usual headers from the start so that collecting them does not regrow the storage.
    private static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders(reservingCapacity: 16)
        forEachValue(of: connection, kind: MHD_ValueKind.HEADER_KIND) { headers.add($0, $1) }
        return headers
    }

    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(String, String)] {
        var values: [(String, String)] = []
        forEachValue(of: connection, kind: kind) { values.append(($0, $1)) }
        return values
    }

    /// Passes each name and value of `kind` the connection holds to `body`, in order.
    private static func forEachValue(
        of connection: OpaquePointer, kind: MHD_ValueKind, _ body: (String, String) -> Void
    ) {
        withoutActuallyEscaping(body) { body in
            let sink = Sink(body)
            withExtendedLifetime(sink) {
                _ = MHD_get_connection_values_n(connection, kind, collect, Unmanaged.passUnretained(sink).toOpaque())
            }
        }
    }

    /// The receiver of one `MHD_get_connection_values_n` walk.
    private final class Sink {
        let body: (String, String) -> Void
        init(_ body: @escaping (String, String) -> Void) { self.body = body }
    }

    private static let collect: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
        guard let context else { return MHD_Result.NO }
        Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue().body(text(key, keySize), text(value, valueSize))
        return MHD_Result.YES
    }

    private static func text(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
        guard let pointer, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}
