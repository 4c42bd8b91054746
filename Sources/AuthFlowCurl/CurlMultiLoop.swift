import AuthFlowHTTP
internal import CCurl
import Foundation
import Synchronization

/// Owns a curl multi handle and the one thread that drives it.
///
/// Other threads only append to the inbox (under a `Mutex`) and call `curl_multi_wakeup`. The
/// loop thread alone adds and removes easy handles, runs curl's callbacks and resumes
/// continuations, and it removes a transfer from `active` before resuming it, so every
/// continuation is resumed exactly once: on completion, on cancellation, or at shutdown.
final class CurlMultiLoop: @unchecked Sendable {
    private struct Inbox {
        var submitted: [CurlTransfer] = []
        var cancelled: [CurlTransfer] = []
        var stopping = false
        var multiAlive = true
    }

    private let multi: UnsafeMutableRawPointer?
    private let inbox = Mutex(Inbox())
    /// Transfers added to the multi handle, keyed by their easy handle. Loop thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    init(maxConnectionsPerHost: Int) {
        multi = curl_multi_init()
        if let multi {
            _ = af_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maxConnectionsPerHost))
            _ = af_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 64)
        }
        let thread = Thread { [self] in run() }
        thread.name = "AuthFlowHTTP.curl"
        thread.start()
    }

    /// Hands a transfer (with its continuation set) to the loop, or fails it if the loop stopped.
    func submit(_ transfer: CurlTransfer) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.submitted.append(transfer)
            return true
        }
        if accepted {
            wake()
        } else {
            transfer.finish(.failure(shutDownError(transfer)))
        }
    }

    /// Asks the loop to abort a transfer; harmless if it already finished.
    func cancel(_ transfer: CurlTransfer) {
        transfer.markCancelled()
        inbox.withLock { $0.cancelled.append(transfer) }
        wake()
    }

    /// Stops the loop; pending transfers fail with `clientShutDown`.
    func shutdown() {
        inbox.withLock { $0.stopping = true }
        wake()
    }

    private func wake() {
        inbox.withLock { inbox in
            if inbox.multiAlive, let multi { _ = curl_multi_wakeup(multi) }
        }
    }

    private func shutDownError(_ transfer: CurlTransfer) -> HTTPClientError {
        HTTPClientError(code: .clientShutDown, message: "the HTTP client was shut down", url: transfer.redactedURL)
    }

    // MARK: - Loop thread

    private func run() {
        guard let multi else {
            failEverything(HTTPClientError.Code.transferFailed, "libcurl could not create a multi handle")
            return
        }
        while true {
            let (submitted, cancelled, stopping) = inbox.withLock { inbox in
                defer {
                    inbox.submitted = []
                    inbox.cancelled = []
                }
                return (inbox.submitted, inbox.cancelled, inbox.stopping)
            }
            for transfer in submitted { add(transfer, to: multi) }
            for transfer in cancelled { abort(transfer, in: multi) }
            if stopping { break }

            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinished(multi)
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for (_, transfer) in active {
            curl_multi_remove_handle(multi, transfer.easy)
            transfer.finish(.failure(shutDownError(transfer)))
        }
        active = [:]
        let late = inbox.withLock { inbox in
            inbox.multiAlive = false
            defer { inbox.submitted = [] }
            return inbox.submitted
        }
        for transfer in late { transfer.finish(.failure(shutDownError(transfer))) }
        curl_multi_cleanup(multi)
    }

    private func add(_ transfer: CurlTransfer, to multi: UnsafeMutableRawPointer) {
        if transfer.isCancelled {
            transfer.finish(.failure(transfer.cancelledError))
            return
        }
        guard curl_multi_add_handle(multi, transfer.easy) == CURLM_OK else {
            transfer.finish(
                .failure(
                    HTTPClientError(
                        code: .transferFailed, message: "libcurl refused the transfer", url: transfer.redactedURL)))
            return
        }
        active[transfer.easy] = transfer
    }

    private func abort(_ transfer: CurlTransfer, in multi: UnsafeMutableRawPointer) {
        guard active.removeValue(forKey: transfer.easy) != nil else { return }
        curl_multi_remove_handle(multi, transfer.easy)
        transfer.finish(.failure(transfer.cancelledError))
    }

    private func collectFinished(_ multi: UnsafeMutableRawPointer) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = af_curl_msg_result(message)
            guard let transfer = active.removeValue(forKey: easy) else {
                curl_multi_remove_handle(multi, easy)
                continue
            }
            curl_multi_remove_handle(multi, easy)
            transfer.finish(transfer.outcome(code))
        }
    }

    private func failEverything(_ code: HTTPClientError.Code, _ message: String) {
        while true {
            let (submitted, stopping) = inbox.withLock { inbox in
                defer { inbox.submitted = [] }
                return (inbox.submitted, inbox.stopping)
            }
            for transfer in submitted {
                transfer.finish(.failure(HTTPClientError(code: code, message: message, url: transfer.redactedURL)))
            }
            if stopping { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
