/// `server.path_prefix` as the router sees it. A path under the prefix is routed as if it were under `/auth`,
/// the one name every route match and route label uses (labels stay `/auth/…` whatever the prefix, so
/// dashboards keep working); a path under `/auth` when the prefix is another is no sign-in route.
struct RoutePrefix: Sendable {
    /// The prefix, e.g. `/auth` or `/login`.
    let path: String
    /// Its segments, e.g. `["api", "auth"]`.
    let segments: [String]
    /// `GET {prefix}/check`, answered at once from the session cache.
    let checkPath: String
    /// Whether the prefix is `/auth`: then a path's segments are already the router's.
    let isDefault: Bool

    /// The segment a routed path starts with.
    static let routed = "auth"

    init(_ path: String) {
        self.path = path
        self.segments = path.split(separator: "/").map(String.init)
        self.checkPath = path + "/check"
        self.isDefault = segments == [Self.routed]
    }

    /// `raw` (a path's segments) as the router matches them: the prefix's segments become `auth`; a path that
    /// starts with `auth` outside the prefix gets an empty first segment, which no route matches.
    func routed(_ raw: [String]) -> [String] {
        if isDefault { return raw }
        if raw.count > segments.count, raw.starts(with: segments) {
            return [Self.routed] + raw[segments.count...]
        }
        if raw.count > 1, raw[0] == Self.routed {
            var outside = raw
            outside[0] = ""
            return outside
        }
        return raw
    }
}
