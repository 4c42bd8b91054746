import AuthFlowStores
internal import CPostgres
import Foundation

/// Keeps a connection string out of error messages: libpq's parse errors quote the URL (password included)
/// and its connection errors may quote parts of it.
///
/// The conninfo is parsed first: one that libpq cannot parse is refused with a fixed message; otherwise the
/// password, as written and as parsed, and the whole conninfo are replaced by `<redacted>` in libpq's messages.
struct PostgresConninfoRedaction {
    private let secrets: [String]

    /// - Throws: `StoreError` `invalidValue` when libpq cannot parse `conninfo` (the message never quotes it).
    init(_ conninfo: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let parsed = PQconninfoParse(conninfo, &message)
        if let message { PQfreemem(message) }
        guard let options = parsed else {
            // A bare database name is not conninfo, and holds no password.
            guard conninfo.contains("=") || conninfo.contains("://") else {
                secrets = []
                return
            }
            throw StoreError(
                .invalidValue,
                "expected a PostgreSQL URL (postgresql://…) or key=value conninfo that libpq can parse, found "
                    + "one it cannot (the value is not shown: it may hold a password)", operation: "connect")
        }
        defer { PQconninfoFree(options) }
        var secrets = [conninfo]
        var index = 0
        while let keyword = options[index].keyword {
            if String(cString: keyword) == "password", let value = options[index].val {
                secrets.append(String(cString: value))
            }
            index += 1
        }
        // The password as written in a URL (percent-encoded): between the user's ':' and the '@'.
        if let scheme = conninfo.range(of: "://") {
            let rest = conninfo[scheme.upperBound...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                secrets.append(String(authority[authority.index(after: colon)..<at]))
            }
        }
        self.secrets = secrets.filter { !$0.isEmpty }.sorted { $0.count > $1.count }
    }

    /// `message` with every secret replaced by `<redacted>`.
    func redact(_ message: String) -> String {
        var text = message
        for secret in secrets {
            text = text.replacing(secret, with: "<redacted>")
        }
        return text
    }
}
