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
            peer = Self.peerAddress(of: connection)
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

    private final class Pairs {
        var values: [(String, String)] = []
    }

    /// The request's header fields, collected straight into the headers value the handler gets.
    private final class Fields {
        /// Room for a browser's usual headers from the start, so that collecting them does not regrow the array.
        var headers = HTTPHeaders(reservingCapacity: 16)
    }

    private static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        let fields = Fields()
        withExtendedLifetime(fields) {
            _ = MHD_get_connection_values_n(
                connection, MHD_ValueKind.HEADER_KIND, collectField, Unmanaged.passUnretained(fields).toOpaque())
        }
        return fields.headers
    }

    private static let collectField: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
        guard let context else { return MHD_Result.NO }
        let fields = Unmanaged<Fields>.fromOpaque(context).takeUnretainedValue()
        fields.headers.add(text(key, keySize), text(value, valueSize))
        return MHD_Result.YES
    }

    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(String, String)] {
        let pairs = Pairs()
        withExtendedLifetime(pairs) {
            _ = MHD_get_connection_values_n(
                connection, kind, collectPair, Unmanaged.passUnretained(pairs).toOpaque())
        }
        return pairs.values
    }

    private static let collectPair: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
        guard let context else { return MHD_Result.NO }
        let pairs = Unmanaged<Pairs>.fromOpaque(context).takeUnretainedValue()
        pairs.values.append((text(key, keySize), text(value, valueSize)))
        return MHD_Result.YES
    }

    private static func text(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
        guard let pointer, count > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }
}
