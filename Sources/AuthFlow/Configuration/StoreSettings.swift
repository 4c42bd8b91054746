/// The `store:` section.
public struct StoreSettings: Sendable, Hashable {
    /// The backend; default ``StoreKind/sqlite``.
    public let kind: StoreKind
    /// The SQLite file (relative paths are relative to the working directory); default `authflow.sqlite`.
    public let path: String

    /// Creates store settings.
    public init(kind: StoreKind = .sqlite, path: String = "authflow.sqlite") {
        self.kind = kind
        self.path = path
    }
}
