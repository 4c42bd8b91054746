import Foundation

/// Where the server reports what it does. Messages are static text; metadata carries provider names,
/// codes and counts, never a token, code, state, cookie, secret or full email address.
public protocol ServerLogger: Sendable {
    /// Records one event.
    func log(_ level: ServerLogLevel, _ message: String, metadata: [String: String])

    /// Whether an event at `level` would be recorded. The server asks before it builds an event's
    /// metadata, so events below a logger's minimum level cost nothing; `true` unless a logger says
    /// otherwise.
    func isEnabled(_ level: ServerLogLevel) -> Bool
}

extension ServerLogger {
    /// Every level is recorded unless the logger says otherwise.
    public func isEnabled(_ level: ServerLogLevel) -> Bool { true }
}

/// How important a log event is.
public enum ServerLogLevel: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Step-by-step detail.
    case debug
    /// Normal operation (sign-ins, sign-outs).
    case info
    /// A refused request or a failed side effect that did not stop the request.
    case warning
    /// A failure that stopped the request.
    case error

    /// Orders by importance.
    public static func < (lhs: ServerLogLevel, rhs: ServerLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `debug`, `info`, `warning` or `error`.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// A logger that drops everything (the library default; `@usableFromInline` because public initialisers name it
/// as their default argument).
@usableFromInline
package struct SilentLogger: ServerLogger {
    /// Creates the logger.
    @usableFromInline
    package init() {}
    /// Drops the event.
    @usableFromInline
    package func log(_ level: ServerLogLevel, _ message: String, metadata: [String: String]) {}
    /// Never: nothing is recorded.
    @usableFromInline
    package func isEnabled(_ level: ServerLogLevel) -> Bool { false }
}

/// A logger writing one line per event to standard error: `authflow: LEVEL message key=value …`.
public struct StandardErrorLogger: ServerLogger {
    /// The least important level written.
    package let minimumLevel: ServerLogLevel

    /// Creates the logger.
    public init(minimumLevel: ServerLogLevel = .info) {
        self.minimumLevel = minimumLevel
    }

    /// Writes the event when it is at least the minimum level it was created with: one `write(2)` of the whole line, unbuffered, so
    /// no line waits in memory (none is lost when the process dies) and lines of concurrent requests never
    /// interleave.
    public func log(_ level: ServerLogLevel, _ message: String, metadata: [String: String]) {
        guard level >= minimumLevel else { return }
        StandardErrorWriter.write(line(level, message, metadata: metadata))
    }

    /// The event's line, newline included: put together as bytes in one buffer sized for it (no string appends).
    func line(_ level: ServerLogLevel, _ message: String, metadata: [String: String]) -> [UInt8] {
        var length = 20 + message.utf8.count
        for (key, value) in metadata { length += 2 + key.utf8.count + value.utf8.count }
        var line: [UInt8] = []
        line.reserveCapacity(length)
        line.append(contentsOf: "authflow: ".utf8)
        line.append(contentsOf: level.description.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: message.utf8)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            line.append(contentsOf: value.utf8)
        }
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// Whether `level` is at least the minimum level it was created with.
    public func isEnabled(_ level: ServerLogLevel) -> Bool { level >= minimumLevel }
}
