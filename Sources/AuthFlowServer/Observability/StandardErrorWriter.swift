import Foundation

/// Writes log lines to standard error with `write(2)` directly: no `FileHandle`, no `Data`, no buffer
/// of our own. Each line goes out in one call (a short write, possible on a pipe, is continued; an
/// interrupted one retried), so a line is in the kernel before the request that logged it is answered.
enum StandardErrorWriter {
    /// Writes `text` (one or more whole lines) to `descriptor` (standard error unless a test says otherwise);
    /// on a failure (e.g. a closed descriptor) the rest of the text is dropped and the server goes on.
    static func write(_ text: String, to descriptor: Int32 = 2) {
        var text = text
        text.withUTF8 { write($0, to: descriptor) }
    }

    /// ``write(_:to:)`` for a line already in UTF-8 bytes.
    static func write(_ bytes: [UInt8], to descriptor: Int32 = 2) {
        bytes.withUnsafeBufferPointer { write($0, to: descriptor) }
    }

    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = Foundation.write(descriptor, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            left -= written
            next += written
        }
    }
}
