import AuthFlowHTTP
internal import CMicroHTTPD
import Foundation
import Synchronization

/// One running libmicrohttpd daemon and the bridge between its threads and Swift tasks.
///
/// libmicrohttpd calls `access` on its polling thread. At the first call for a request, the route
/// policy sets its body limit (and whether its handler may start on the polling thread); a larger
/// body is refused with 413 and never kept. When a request's body is complete, the
/// immediate handler (if any) may answer it right there, with no task; otherwise the
/// handler starts in a `Task` whose executor (`RequestExecutor`) runs it on the polling thread
/// until it answers or waits. An answer is queued at once. A handler that waits (a store, a
/// provider) goes on on the handler threads (`HandlerExecutor`) while its connection is suspended
/// (so the polling thread goes on serving others); its response is stored in the request's
/// context and the connection is resumed; libmicrohttpd (woken through its inter-thread channel)
/// calls `access` again, which queues the stored response. Suspended connections are tracked under `shared` so that stopping can answer and
/// resume the ones whose handler has not finished: libmicrohttpd forbids stopping a daemon with
/// suspended connections, and a handler finishing after the stop must not touch the freed
/// connection.
final class MicroHTTPDDaemon: @unchecked Sendable {
    private struct Shared {
        var accepting = true
        var suspended: [ObjectIdentifier: MicroHTTPDRequestContext] = [:]
        var resumesInProgress = 0
        var stopped = false
    }

    private var pointer: OpaquePointer?
    private(set) var port: Int
    private let handler: HTTPHandler
    private let immediate: HTTPImmediateHandler?
    private let routePolicy: HTTPRoutePolicyProvider?
    private let maxBodyBytes: Int
    private let inFlight = Atomic<Int>(0)
    /// Body bytes held for requests not completed yet (what stalled uploads cost).
    private let buffered = Atomic<Int>(0)
    /// Body bytes received so far, kept or discarded (tests wait for it instead of for time to pass).
    private let received = Atomic<Int>(0)
    /// How many times a connection was suspended for a handler that waits (tests wait for it).
    private let suspensions = Atomic<Int>(0)
    private let shared = Mutex(Shared())
    private let connections: MicroHTTPDConnectionTable
    private let trustedProxies: [IPNetwork]
    /// Where a handler goes on once it waits (the server's blocking threads).
    private let executor: HandlerExecutor

    init(
        configuration: HTTPServer.Configuration, immediate: HTTPImmediateHandler? = nil,
        routePolicy: HTTPRoutePolicyProvider? = nil, executor: HandlerExecutor, handler: @escaping HTTPHandler
    ) throws(HTTPServerError) {
        self.handler = handler
        self.executor = executor
        self.immediate = immediate
        self.routePolicy = routePolicy
        self.maxBodyBytes = configuration.maxBodyBytes
        self.port = 0
        self.trustedProxies = configuration.trustedProxies
        self.connections = MicroHTTPDConnectionTable(
            perClientLimit: configuration.maxConnectionsPerClient, trusted: configuration.trustedProxies,
            requestTimeout: configuration.requestTimeout, ipv6Prefix: configuration.ipv6ClientPrefix)
        let host = configuration.host == "localhost" ? "127.0.0.1" : configuration.host
        guard (0...65_535).contains(configuration.port), configuration.maxBodyBytes >= 0,
            (1...64).contains(configuration.threads), configuration.requestTimeout >= 0,
            configuration.idleTimeout >= 0, configuration.connectionMemoryLimit >= 4096,
            (1...1_000_000).contains(configuration.maxConnections),
            (1...1_000_000).contains(configuration.maxConnectionsPerClient),
            (16...128).contains(configuration.ipv6ClientPrefix)
        else {
            throw HTTPServerError(
                code: .invalidConfiguration,
                message:
                    "expected port 0–65535, threads 1–64, non-negative limits and timeouts, 1–1,000,000 connections "
                    + "(overall and per client), at least 4 KiB per connection and an IPv6 client prefix of 16–128")
        }
        let flags =
            MHD_USE_AUTO_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
        var result: Int32 = 0
        let daemon = af_mhd_start_daemon(
            flags, host, UInt16(configuration.port), microHTTPDAccess, Unmanaged.passUnretained(self).toOpaque(),
            microHTTPDCompleted, Unmanaged.passUnretained(self).toOpaque(), configuration.connectionMemoryLimit,
            UInt32(configuration.idleTimeout), UInt32(configuration.threads), microHTTPDAcceptPolicy,
            microHTTPDNotifyConnection, UInt32(configuration.maxConnections), &result)
        guard let daemon else {
            if result == Int32(AF_MHD_START_BAD_HOST) {
                throw HTTPServerError(
                    code: .invalidConfiguration,
                    message: "expected a literal IPv4 or IPv6 address to listen on, found \"\(configuration.host)\"")
            }
            throw HTTPServerError(
                code: .startFailed,
                message:
                    "expected to listen on \(configuration.host) port \(configuration.port), but it could not be bound")
        }
        pointer = daemon
        port = Int(af_mhd_bound_port(daemon))
        connections.startSweeper()
    }

    /// Body bytes held for requests not completed yet.
    var bufferedBodyBytes: Int { buffered.load(ordering: .relaxed) }

    /// Connections open now.
    var openConnections: Int { connections.openCount }

    /// Body bytes received so far, kept or discarded.
    var receivedBodyBytes: Int { received.load(ordering: .relaxed) }

    /// How many times a connection was suspended because its handler waits (after it left the polling thread).
    var suspendedConnections: Int { suspensions.load(ordering: .acquiring) }

    // MARK: - Stopping

    /// Graceful stop; see `HTTPServer.stop()`.
    func stop(gracePeriod: Double) async {
        guard let pointer, beginStop() else { return }
        let listenSocket = MHD_quiesce_daemon(pointer)
        let deadline = Date().addingTimeInterval(max(0, gracePeriod))
        while inFlight.load(ordering: .acquiring) > 0 && Date() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if answerUnfinished() > 0 {
            // Give libmicrohttpd a moment to send the 503s before it closes the connections.
            let sendDeadline = Date().addingTimeInterval(1)
            while inFlight.load(ordering: .acquiring) > 0 && Date() < sendDeadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        stopDaemon(listenSocket: listenSocket)
    }

    /// Immediate stop, for a server dropped while running.
    func stopNow() {
        guard let pointer, beginStop() else { return }
        let listenSocket = MHD_quiesce_daemon(pointer)
        answerUnfinished()
        stopDaemon(listenSocket: listenSocket)
    }

    private func beginStop() -> Bool {
        shared.withLock { shared in
            defer { shared.stopped = true }
            return !shared.stopped
        }
    }

    /// Takes over every connection whose handler is still running: answers it with 503 and
    /// resumes it (libmicrohttpd must not be stopped with suspended connections). A handler
    /// finishing later finds its connection gone from `suspended` and does nothing.
    @discardableResult
    private func answerUnfinished() -> Int {
        let unfinished = shared.withLock { shared in
            shared.accepting = false
            defer { shared.suspended = [:] }
            return Array(shared.suspended.values)
        }
        // A handler that passed the `accepting` check may be inside MHD_resume_connection.
        let deadline = Date().addingTimeInterval(2)
        while shared.withLock({ $0.resumesInProgress }) > 0 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.001)
        }
        for context in unfinished {
            let suspended = context.finish(
                with: .error(
                    "shutting_down", message: "The server stopped before this request was answered.", status: 503))
            if suspended { MHD_resume_connection(context.connection) }
        }
        return unfinished.count
    }

    private func stopDaemon(listenSocket: Int32) {
        guard let pointer else { return }
        connections.stop()
        MHD_stop_daemon(pointer)
        self.pointer = nil
        if listenSocket >= 0 { close(listenSocket) }
    }

    // MARK: - libmicrohttpd callbacks (polling thread)

    fileprivate func access(
        connection: OpaquePointer, url: String, method: String, uploadData: UnsafePointer<CChar>?,
        uploadDataSize: UnsafeMutablePointer<Int>, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let stored = requestContext.pointee else {
            return begin(connection: connection, url: url, method: method, requestContext: requestContext)
        }
        let context = Unmanaged<MicroHTTPDRequestContext>.fromOpaque(stored).takeUnretainedValue()
        let size = uploadDataSize.pointee
        if size > 0 {
            uploadDataSize.pointee = 0
            return receive(size, bytes: uploadData, into: context)
        }
        if context.responded { return MHD_Result.YES }
        if let response = context.takeResponse() {
            context.responded = true
            return queue(response, on: connection)
        }
        if context.bodyTooLarge {
            context.responded = true
            return queue(context.tooLargeResponse ?? Self.tooLarge(context.bodyLimit), on: connection)
        }
        guard !context.handlerStarted else { return MHD_Result.YES }
        return dispatch(context, on: connection)
    }

    /// The first call for a request (headers read): its context, its route's body limit, and a refusal of a
    /// body announced larger than that limit.
    private func begin(
        connection: OpaquePointer, url: String, method: String,
        requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let context = MicroHTTPDRequestContext(
            connection: connection, method: method, rawURL: url, trustedProxies: trustedProxies)
        requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        inFlight.add(1, ordering: .acquiringAndReleasing)
        // The route's limit is known before any of the body arrives: a larger announced body is refused
        // unread, and a chunked one is not kept past it.
        if let policy = routePolicy?(method, url) {
            context.bodyLimit = min(maxBodyBytes, max(0, policy.maxBodyBytes))
            context.startsOnPollingThread = policy.startsOnPollingThread
            context.tooLargeResponse = policy.tooLargeResponse
        } else {
            context.bodyLimit = maxBodyBytes
        }
        if let length = context.headers["Content-Length"], let announced = Int(length), announced > context.bodyLimit {
            context.responded = true
            return queue(context.tooLargeResponse ?? Self.tooLarge(context.bodyLimit), on: connection)
        }
        return MHD_Result.YES
    }

    /// A piece of the body: kept while within the limit, counted and dropped past it (and the connection
    /// closed when the client keeps streaming far beyond it).
    private func receive(_ size: Int, bytes uploadData: UnsafePointer<CChar>?, into context: MicroHTTPDRequestContext)
        -> MHD_Result
    {
        received.add(size, ordering: .relaxed)
        if context.responded || context.bodyTooLarge || context.body.count + size > context.bodyLimit {
            if !context.bodyTooLarge {
                buffered.subtract(context.body.count, ordering: .relaxed)
                context.body = []
            }
            context.bodyTooLarge = true
            context.discardedBytes += size
            return context.discardedBytes > 4 * max(context.bodyLimit, 16 * 1024) ? MHD_Result.NO : MHD_Result.YES
        }
        if let uploadData {
            context.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: size))
            buffered.add(size, ordering: .relaxed)
        }
        return MHD_Result.YES
    }

    /// The whole request has arrived: answered at once by the immediate handler, or handed to a task (the
    /// connection suspended until it answers).
    private func dispatch(_ context: MicroHTTPDRequestContext, on connection: OpaquePointer) -> MHD_Result {
        context.handlerStarted = true
        if let entry = Self.entry(of: connection) { connections.requestReceived(entry) }
        let request = context.request()
        // A request the immediate handler answers needs no task (and no suspension): answered right here.
        if let immediate, shared.withLock({ $0.accepting }), let response = immediate(request) {
            context.responded = true
            return queue(response, on: connection)
        }
        let tracked = shared.withLock { shared -> Bool in
            guard shared.accepting else { return false }
            shared.suspended[ObjectIdentifier(context)] = context
            return true
        }
        guard tracked else {
            context.responded = true
            return queue(.error("shutting_down", message: "The server is stopping.", status: 503), on: connection)
        }
        let handler = self.handler
        if context.startsOnPollingThread {
            let executor = RequestExecutor(forwardingTo: self.executor)
            Task(executorPreference: executor) { [self] in
                let response = await handler(request)
                complete(context, with: response)
            }
            // The handler runs here until it answers or waits; an answer is sent right away.
            executor.drain()
        } else {
            Task(executorPreference: self.executor) { [self] in
                let response = await handler(request)
                complete(context, with: response)
            }
        }
        guard let response = context.responseOrSuspend() else {
            suspensions.add(1, ordering: .releasing)
            return MHD_Result.YES
        }
        context.responded = true
        return queue(response, on: connection)
    }

    /// Stores the handler's response and resumes the connection when it is suspended, unless
    /// stopping took the request over.
    private func complete(_ context: MicroHTTPDRequestContext, with response: HTTPServerResponse) {
        let mayAnswer = shared.withLock { shared -> Bool in
            guard shared.accepting, shared.suspended.removeValue(forKey: ObjectIdentifier(context)) != nil else {
                return false
            }
            shared.resumesInProgress += 1
            return true
        }
        guard mayAnswer else { return }
        if context.finish(with: response) { MHD_resume_connection(context.connection) }
        shared.withLock { $0.resumesInProgress -= 1 }
    }

    fileprivate func completed(
        connection: OpaquePointer?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) {
        if let connection, let entry = Self.entry(of: connection) { connections.responseSent(entry) }
        guard let stored = requestContext.pointee else { return }
        requestContext.pointee = nil
        let context = Unmanaged<MicroHTTPDRequestContext>.fromOpaque(stored)
        buffered.subtract(context.takeUnretainedValue().body.count, ordering: .relaxed)
        context.release()
        inFlight.subtract(1, ordering: .acquiringAndReleasing)
    }

    // MARK: - Connection accounting (polling thread)

    fileprivate func mayAccept(_ address: UnsafePointer<sockaddr>?) -> Bool {
        var buffer = [CChar](repeating: 0, count: 64)
        let status = buffer.withUnsafeMutableBufferPointer { pointer in
            af_mhd_address_text(address, pointer.baseAddress, socklen_t(pointer.count))
        }
        guard status == 0 else { return true }
        return connections.mayAccept(Self.text(buffer))
    }

    fileprivate func connectionOpened(_ connection: OpaquePointer) -> UnsafeMutableRawPointer {
        var buffer = [CChar](repeating: 0, count: 64)
        let status = buffer.withUnsafeMutableBufferPointer { pointer in
            af_mhd_client_address(connection, pointer.baseAddress, socklen_t(pointer.count))
        }
        let entry = connections.opened(
            client: status == 0 ? Self.text(buffer) : "", socket: af_mhd_connection_fd(connection))
        return Unmanaged.passRetained(entry).toOpaque()
    }

    fileprivate func connectionClosed(_ context: UnsafeMutableRawPointer) {
        let entry = Unmanaged<MicroHTTPDConnectionTable.Entry>.fromOpaque(context).takeRetainedValue()
        connections.closed(entry)
    }

    private static func entry(of connection: OpaquePointer) -> MicroHTTPDConnectionTable.Entry? {
        guard let context = af_mhd_socket_context(connection) else { return nil }
        return Unmanaged<MicroHTTPDConnectionTable.Entry>.fromOpaque(context).takeUnretainedValue()
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func tooLarge(_ limit: Int) -> HTTPServerResponse {
        .error("request_too_large", message: "The request body exceeds \(limit) bytes.", status: 413)
    }

    /// Hands `response` to libmicrohttpd. A response with an invalid status or header (one
    /// that could split the response) is replaced by a 500.
    private func queue(_ response: HTTPServerResponse, on connection: OpaquePointer) -> MHD_Result {
        if let made = Self.make(response) {
            defer { MHD_destroy_response(made.pointer) }
            return MHD_queue_response(connection, made.status, made.pointer)
        }
        let fallback = HTTPServerResponse.error(
            "invalid_response", message: "The server produced an invalid response.", status: 500)
        guard let made = Self.make(fallback) else { return MHD_Result.NO }
        defer { MHD_destroy_response(made.pointer) }
        return MHD_queue_response(connection, made.status, made.pointer)
    }

    private static func make(_ response: HTTPServerResponse) -> (pointer: OpaquePointer, status: UInt32)? {
        guard (100...999).contains(response.status) else { return nil }
        // MUST_COPY: libmicrohttpd copies the body, so the array's own storage is handed over as is (no
        // copy of our own); an empty body is passed as no buffer at all.
        let made = response.body.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(
                buffer.count, buffer.count == 0 ? nil : UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let made else { return nil }
        for (name, value) in response.headers {
            // Checked while adding: one invalid field makes the whole response invalid.
            guard HTTPHeaders.isValidName(name), HTTPHeaders.isValidValue(value) else {
                MHD_destroy_response(made)
                return nil
            }
            if HTTPHeaders.sameName(name, "Content-Length") || HTTPHeaders.sameName(name, "Transfer-Encoding") {
                continue
            }
            // Explicit C strings: the implicit String-to-pointer conversion copies every string to the heap.
            let added = name.withCString { name in
                value.withCString { value in MHD_add_response_header(made, name, value) }
            }
            guard added == MHD_Result.YES else {
                MHD_destroy_response(made)
                return nil
            }
        }
        return (made, UInt32(response.status))
    }
}

/// MHD_AccessHandlerCallback: forwards to the daemon object passed as `cls`.
private let microHTTPDAccess: MHD_AccessHandlerCallback = {
    cls, connection, url, method, _, uploadData, uploadDataSize, requestContext in
    guard let cls, let connection, let uploadDataSize, let requestContext else { return MHD_Result.NO }
    let daemon = Unmanaged<MicroHTTPDDaemon>.fromOpaque(cls).takeUnretainedValue()
    return daemon.access(
        connection: connection, url: url.map { String(cString: $0) } ?? "",
        method: method.map { String(cString: $0) } ?? "", uploadData: uploadData, uploadDataSize: uploadDataSize,
        requestContext: requestContext)
}

/// MHD_RequestCompletedCallback: releases the request's context.
private let microHTTPDCompleted: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
    guard let cls, let requestContext else { return }
    Unmanaged<MicroHTTPDDaemon>.fromOpaque(cls).takeUnretainedValue().completed(
        connection: connection, requestContext: requestContext)
}

/// MHD_AcceptPolicyCallback: refuses a connection over its client address's cap (closed at once).
private let microHTTPDAcceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
    guard let cls else { return MHD_Result.NO }
    return Unmanaged<MicroHTTPDDaemon>.fromOpaque(cls).takeUnretainedValue().mayAccept(address)
        ? MHD_Result.YES : MHD_Result.NO
}

/// MHD_NotifyConnectionCallback: counts connections per client and tracks their request deadline.
private let microHTTPDNotifyConnection: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let socketContext else { return }
    let daemon = Unmanaged<MicroHTTPDDaemon>.fromOpaque(cls).takeUnretainedValue()
    if code == MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_STARTED {
        guard let connection else { return }
        socketContext.pointee = daemon.connectionOpened(connection)
    } else if let context = socketContext.pointee {
        socketContext.pointee = nil
        daemon.connectionClosed(context)
    }
}
