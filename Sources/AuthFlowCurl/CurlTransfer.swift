import AuthFlowHTTP
internal import CCurl
import Synchronization

/// One request on a curl easy handle: the options, the received headers and body, and the
/// continuation to resume. After `CurlMultiLoop.submit` only the loop thread touches it, except
/// for `isCancelled`, which is atomic; a transfer run by ``perform()`` belongs to the thread running it.
///
/// The handle is the transfer's own (created and freed with it) for the multi loop, or borrowed from
/// ``CurlDirectHandles`` (reset, and kept afterwards with its open connections) for ``perform()``.
final class CurlTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    private let ownsHandle: Bool
    private var headerList: UnsafeMutablePointer<curl_slist>?
    let redactedURL: String
    let maxResponseBytes: Int
    var continuation: CheckedContinuation<HTTPClientResponse, any Error>?
    private let cancelled = Atomic<Bool>(false)

    private(set) var body: [UInt8] = []
    private(set) var headers = HTTPHeaders()
    private var headerBytes = 0
    private(set) var exceededLimit = false

    /// Largest total size of response header lines accepted.
    static let maxHeaderBytes = 64 * 1024

    /// A transfer on `borrowed` (reset first, not freed with the transfer), or on a handle of its own.
    init(
        request: HTTPClientRequest, configuration: CurlHTTPClient.Configuration,
        borrowing borrowed: UnsafeMutableRawPointer? = nil
    ) throws(HTTPClientError) {
        let redacted = HTTPClientError.redact(request.url)
        redactedURL = redacted
        maxResponseBytes = max(0, configuration.maxResponseBytes)
        try Self.validate(request, redactedURL: redacted)
        let timeout = request.timeout ?? configuration.defaultTimeout
        guard timeout.isFinite, timeout > 0, timeout <= 86_400, configuration.connectTimeout.isFinite,
            configuration.connectTimeout > 0
        else {
            throw HTTPClientError(
                code: .invalidRequest, message: "expected a positive finite timeout, found \(timeout)",
                url: redacted)
        }
        if let borrowed {
            // Clears every option; the handle keeps its open connections and caches.
            curl_easy_reset(borrowed)
            easy = borrowed
            ownsHandle = false
        } else {
            guard let handle = curl_easy_init() else {
                throw HTTPClientError(
                    code: .transferFailed, message: "libcurl could not create a handle", url: redacted)
            }
            easy = handle
            ownsHandle = true
        }
        try configure(request, configuration: configuration, timeout: timeout)
    }

    deinit {
        if ownsHandle { curl_easy_cleanup(easy) }
        if let headerList { curl_slist_free_all(headerList) }
    }

    /// Runs the transfer on the calling thread, which blocks until it ends (a handler thread, counted as
    /// blocked). ``markCancelled()`` from another thread aborts it at libcurl's next progress call (at least
    /// once a second, more often while data flows).
    func perform() -> Result<HTTPClientResponse, HTTPClientError> {
        guard !isCancelled else { return .failure(cancelledError) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let watching =
            af_curl_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0) == CURLE_OK
            && af_curl_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, me) == CURLE_OK
            && af_curl_easy_setopt_xferinfo(easy, curlProgress) == CURLE_OK
        guard watching else {
            return .failure(
                HTTPClientError(code: .transferFailed, message: "libcurl refused the transfer", url: redactedURL))
        }
        let code = curl_easy_perform(easy)
        if code == CURLE_ABORTED_BY_CALLBACK && isCancelled { return .failure(cancelledError) }
        return outcome(code)
    }

    /// The error of a transfer cancelled before or while it ran.
    var cancelledError: HTTPClientError {
        HTTPClientError(code: .cancelled, message: "the request was cancelled", url: redactedURL)
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func markCancelled() { cancelled.store(true, ordering: .releasing) }

    /// Resumes the continuation (at most once; later calls do nothing).
    func finish(_ result: Result<HTTPClientResponse, HTTPClientError>) {
        guard let continuation else { return }
        self.continuation = nil
        continuation.resume(with: result.mapError { $0 as any Error })
    }

    // MARK: - Setup

    private static func validate(_ request: HTTPClientRequest, redactedURL: String) throws(HTTPClientError) {
        let lower = request.url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw HTTPClientError(
                code: .unsupportedScheme, message: "expected an http or https URL, found another scheme",
                url: redactedURL)
        }
        guard !request.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw HTTPClientError(
                code: .invalidURL, message: "expected a URL without spaces or control characters", url: redactedURL)
        }
        guard HTTPHeaders.isValidName(request.method) else {
            throw HTTPClientError(
                code: .invalidRequest, message: "expected the method to be an HTTP token", url: redactedURL)
        }
        for (name, value) in request.headers {
            guard HTTPHeaders.isValidName(name), HTTPHeaders.isValidValue(value) else {
                throw HTTPClientError(
                    code: .invalidRequest,
                    message: "expected header names to be tokens and values free of CR, LF and NUL",
                    url: redactedURL)
            }
        }
    }

    private func configure(
        _ request: HTTPClientRequest, configuration: CurlHTTPClient.Configuration, timeout: Double
    ) throws(HTTPClientError) {
        let ok =
            setConnectionOptions(request, configuration: configuration, timeout: timeout)
            && setMethodAndBody(request) && setHeaders(request) && setCallbacks()
        guard ok else {
            throw HTTPClientError(
                code: .invalidRequest, message: "libcurl refused an option of this request", url: redactedURL)
        }
    }

    private func setLong(_ option: CURLoption, _ value: Int) -> Bool {
        af_curl_easy_setopt_long(easy, option, value) == CURLE_OK
    }

    private func setString(_ option: CURLoption, _ value: String) -> Bool {
        af_curl_easy_setopt_string(easy, option, value) == CURLE_OK
    }

    /// The URL, protocols, timeouts, TLS checks, proxy and size cap; false when libcurl refuses one.
    private func setConnectionOptions(
        _ request: HTTPClientRequest, configuration: CurlHTTPClient.Configuration, timeout: Double
    ) -> Bool {
        var ok =
            setString(CURLOPT_URL, request.url) && setString(CURLOPT_PROTOCOLS_STR, "http,https")
            && setString(CURLOPT_REDIR_PROTOCOLS_STR, "http,https") && setLong(CURLOPT_FOLLOWLOCATION, 0)
            && setLong(CURLOPT_NOSIGNAL, 1) && setLong(CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
            && setLong(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(min(configuration.connectTimeout, timeout)))
            && setLong(CURLOPT_SSLVERSION, Int(CURL_SSLVERSION_TLSv1_2)) && setLong(CURLOPT_SSL_VERIFYPEER, 1)
            && setLong(CURLOPT_SSL_VERIFYHOST, 2)
        if let caBundlePath = configuration.caBundlePath { ok = ok && setString(CURLOPT_CAINFO, caBundlePath) }
        if let proxy = configuration.proxy {
            ok = ok && setString(CURLOPT_PROXY, proxy)
        } else {
            ok = ok && setString(CURLOPT_PROXY, "") && setString(CURLOPT_NOPROXY, "*")
        }
        ok = ok && af_curl_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxResponseBytes)) == CURLE_OK
        if !request.headers.contains("User-Agent") { ok = ok && setString(CURLOPT_USERAGENT, configuration.userAgent) }
        return ok
    }

    /// The method, and the body when there is one; false when libcurl refuses either.
    private func setMethodAndBody(_ request: HTTPClientRequest) -> Bool {
        let method = request.method
        switch (method, request.body) {
        case ("GET", nil):
            return setLong(CURLOPT_HTTPGET, 1)
        case ("HEAD", nil):
            return setLong(CURLOPT_NOBODY, 1)
        case (_, let body?):
            var ok = af_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) == CURLE_OK
            // COPYPOSTFIELDS copies `POSTFIELDSIZE` bytes, so binary bodies are safe; an empty
            // body still needs a valid pointer.
            let bytes = body.isEmpty ? [0] : body
            ok =
                ok
                && bytes.withUnsafeBytes { buffer in
                    guard let base = buffer.baseAddress else { return false }
                    return af_curl_easy_setopt_pointer(
                        easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
                        == CURLE_OK
                }
            if method != "POST" { ok = ok && setString(CURLOPT_CUSTOMREQUEST, method) }
            return ok
        default:
            return setString(CURLOPT_CUSTOMREQUEST, method)
        }
    }

    /// The request's headers, and no `Expect: 100-continue` round trip for large bodies.
    private func setHeaders(_ request: HTTPClientRequest) -> Bool {
        var ok = true
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for (name, value) in request.headers {
            // "Name;" sends a header with an empty value; "Name:" would remove it.
            let line = value.isEmpty ? name + ";" : name + ": " + value
            guard let extended = curl_slist_append(list, line) else {
                ok = false
                break
            }
            list = extended
        }
        if let extended = curl_slist_append(list, "Expect:") { list = extended } else { ok = false }
        headerList = list
        return ok && af_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list) == CURLE_OK
    }

    /// This transfer as libcurl's private pointer, and the body and header callbacks that write into it.
    private func setCallbacks() -> Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        return af_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me) == CURLE_OK
            && af_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me) == CURLE_OK
            && af_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me) == CURLE_OK
            && af_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteBody) == CURLE_OK
            && af_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader) == CURLE_OK
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        max(1, Int((seconds * 1000).rounded(.up)))
    }

    // MARK: - Receiving (loop thread)

    /// Appends body bytes; false (abort) once the total would exceed the cap.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maxResponseBytes else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Records one header line; false (abort) when the headers are too large or announce a body
    /// larger than the cap.
    func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= Self.maxHeaderBytes else { return false }
        var line = Array(bytes)
        while let last = line.last, last == 0x0A || last == 0x0D { line.removeLast() }
        if line.starts(with: Array("HTTP/".utf8)) {
            headers = HTTPHeaders()  // a new (final or interim) response begins
            return true
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return true }
        let name = String(decoding: line[..<colon], as: UTF8.self)
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value.removeFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
        let text = String(decoding: value, as: UTF8.self)
        if HTTPHeaders.sameName(name, "Content-Length"), let length = Int(text), length > maxResponseBytes {
            exceededLimit = true
            return false
        }
        headers.add(name, text)
        return true
    }

    /// The response, once curl reported the transfer done with `code`.
    func outcome(_ code: CURLcode) -> Result<HTTPClientResponse, HTTPClientError> {
        if exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(
                HTTPClientError(
                    code: .responseTooLarge,
                    message: "expected a response body of at most \(maxResponseBytes) bytes, found a larger one",
                    url: redactedURL))
        }
        guard code == CURLE_OK else { return .failure(Self.error(for: code, url: redactedURL)) }
        var status = 0
        _ = af_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPClientResponse(status: status, headers: headers, body: body))
    }

    static func error(for code: CURLcode, url: String) -> HTTPClientError {
        let detail = String(cString: curl_easy_strerror(code))
        let kind: HTTPClientError.Code
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            kind = .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_GOT_NOTHING,
            CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            kind = .connectionFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED:
            kind = .tlsFailure
        case CURLE_URL_MALFORMAT:
            kind = .invalidURL
        case CURLE_UNSUPPORTED_PROTOCOL:
            kind = .unsupportedScheme
        default:
            kind = .transferFailed
        }
        return HTTPClientError(code: kind, message: "the request failed: \(detail)", url: url)
    }
}

/// CURLOPT_WRITEFUNCTION: hands body bytes to the transfer; returning less than given aborts.
private let curlWriteBody: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return 0 }
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// CURLOPT_HEADERFUNCTION: hands one header line to the transfer.
private let curlWriteHeader: curl_write_callback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard length > 0, let data else { return length }
    return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

/// CURLOPT_XFERINFOFUNCTION: aborts a transfer run by `perform()` once it is cancelled.
private let curlProgress: curl_xferinfo_callback = { context, _, _, _, _ in
    guard let context else { return 1 }
    return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
}
