public import AuthFlowStores
import Foundation

/// Where and how to reach Redis, parsed from `store.redis_url`:
/// `redis://[[user]:password@]host[:port][/db]` or `unix:///path/to/socket[?db=N&password=P&user=U]`.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// A TCP host and port, or a unix socket path.
    package enum Address: Sendable, Hashable {
        /// A host name or address and a port.
        case tcp(host: String, port: Int)
        /// A unix-domain socket.
        case unix(path: String)
    }

    /// Where the server listens.
    package let address: Address
    /// The ACL user, when one is given (Redis 6+); `nil` authenticates as `default`.
    package let user: String?
    /// The password, when one is given.
    package let password: String?
    /// The logical database (`SELECT`).
    package let database: Int

    /// Parses a `redis://` or `unix://` URL.
    ///
    /// - Throws: `StoreError` `invalidValue` naming what is wrong, never echoing the URL (it may hold a
    ///   password).
    public init(url: String) throws(StoreError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw StoreError(.invalidValue, "expected a redis:// or unix:// URL, found a value that is not a URL")
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        switch scheme {
        case "redis":
            guard let host = components.host, !host.isEmpty else {
                throw StoreError(.invalidValue, "expected a host in the redis:// URL, found none")
            }
            address = .tcp(host: host, port: components.port ?? 6379)
            let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            guard let database = path.isEmpty ? 0 : Int(path), database >= 0 else {
                throw StoreError(
                    .invalidValue, "expected a database number as the redis:// URL's path, found another value")
            }
            self.database = database
            let user = components.user?.removingPercentEncoding
            self.user = user?.isEmpty == false ? user : nil
            password = components.password?.removingPercentEncoding
        case "unix":
            guard !components.path.isEmpty else {
                throw StoreError(.invalidValue, "expected a socket path in the unix:// URL, found none")
            }
            address = .unix(path: components.path)
            guard let database = query["db"].map({ Int($0) }) ?? 0, database >= 0 else {
                throw StoreError(
                    .invalidValue, "expected a database number in the unix:// URL's db, found another value")
            }
            self.database = database
            user = query["user"].flatMap { $0.isEmpty ? nil : $0 }
            password = query["password"].flatMap { $0.isEmpty ? nil : $0 }
        case "rediss":
            throw StoreError(
                .invalidValue,
                "expected a redis:// or unix:// URL, found rediss:// (TLS is not supported; use a "
                    + "TLS tunnel or a unix socket)")
        default:
            throw StoreError(.invalidValue, "expected a redis:// or unix:// URL, found another scheme")
        }
    }

    /// The address and database; the password only as set or not.
    public var description: String {
        let place: String
        switch address {
        case .tcp(let host, let port): place = "\(host):\(port)"
        case .unix(let path): place = path
        }
        return "RedisEndpoint(\(place), db \(database), password: \(password == nil ? "none" : "<redacted>"))"
    }
}
