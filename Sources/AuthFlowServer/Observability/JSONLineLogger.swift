public import AuthFlowJOSE
import Foundation

/// A logger writing one JSON object per line (`server.log_format: json`):
///
/// ```json
/// {"time":"2026-12-01T07:00:00.123Z","level":"info","event":"request","request_id":"4f…","provider":"google",
///  "route":"/auth/{provider}/callback","status":302,"duration_ms":41.7}
/// ```
///
/// `time`, `level`, `event`, `request_id`, `provider`, `route`, `status` and `duration_ms` are always present
/// (`null` when the event has none), then `code` where there is one, then the event's other metadata in key
/// order. Like every ``ServerLogger`` it only ever sees static messages and safe metadata, never a token, code,
/// secret, cookie or full email.
public struct JSONLineLogger: ServerLogger {
    /// The least important level written.
    package let minimumLevel: ServerLogLevel
    private let clock: any WallClock
    private let write: @Sendable (String) -> Void

    /// The keys every line has, in order.
    static let fixedKeys = ["request_id", "provider", "route", "status", "duration_ms"]

    /// Creates the logger.
    ///
    /// - Parameters:
    ///   - minimumLevel: the least important level written.
    ///   - clock: the source of each line's `time`.
    ///   - write: where each line (with its newline) goes; standard error by default.
    public init(
        minimumLevel: ServerLogLevel = .info, clock: any WallClock = SystemClock(),
        write: (@Sendable (String) -> Void)? = nil
    ) {
        self.minimumLevel = minimumLevel
        self.clock = clock
        self.write = write ?? { StandardErrorWriter.write($0) }
    }

    /// Writes the event as one JSON line when it is at least the minimum level it was created with.
    public func log(_ level: ServerLogLevel, _ message: String, metadata: [String: String]) {
        guard level >= minimumLevel else { return }
        write(line(level, message, metadata: metadata) + "\n")
    }

    /// Whether `level` is at least the minimum level it was created with.
    public func isEnabled(_ level: ServerLogLevel) -> Bool { level >= minimumLevel }

    func line(_ level: ServerLogLevel, _ message: String, metadata: [String: String]) -> String {
        // The audit trail's RFC 3339 writer: the same text as Foundation's ISO 8601 style with fractional
        // seconds, without a calendar and a formatter for every line.
        let time = AuditEvent.timestamp(clock.now())
        var fields = [("time", quoted(time)), ("level", quoted(level.description)), ("event", quoted(message))]
        for key in Self.fixedKeys {
            guard let value = metadata[key] else {
                fields.append((key, "null"))
                continue
            }
            let numeric = (key == "status" || key == "duration_ms") && Self.isPlainNumber(value)
            fields.append((key, numeric ? value : quoted(value)))
        }
        if let code = metadata["code"] { fields.append(("code", quoted(code))) }
        for key in metadata.keys.sorted() where key != "code" && !Self.fixedKeys.contains(key) {
            fields.append((key, quoted(metadata[key] ?? "")))
        }
        return "{" + fields.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// Digits with at most one `.` inside: safe to write as a JSON number.
    static func isPlainNumber(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, let last = bytes.last, first != UInt8(ascii: "."), last != UInt8(ascii: ".")
        else { return false }
        guard bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: ".") })
        else { return false }
        return bytes.filter { $0 == UInt8(ascii: ".") }.count <= 1
    }

    private func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }
}
