import AuthFlowJOSE
public import Foundation

/// What a ``SessionStore`` keeps for a signed-in browser.
public struct SessionRecord: Sendable, Hashable {
    /// The signed-in user.
    public let userID: UserID
    /// The provider the user signed in with.
    public let provider: String
    /// The subject of the identity the user signed in with.
    public let subject: String
    /// When the session began.
    public let createdAt: Date
    /// When the session ends; lookups after this return `nil`.
    public let expiresAt: Date
    /// The provider's session id (the id_token's `sid`), when the sign-in had one; OpenID Connect
    /// back-channel logout ends sessions by it.
    public let providerSessionID: String?
    /// How the session's token travels; default ``SessionKind/cookie``.
    public let kind: SessionKind
    /// The groups the provider placed the user in at sign-in, at most 64 of at most
    /// 256 bytes each; empty when it named none.
    public let groups: [String]
    /// The roles the provider granted the user at sign-in (the verified identity's `roles`), bounded as ``groups``.
    public let roles: [String]
    /// The tenant that issued the identity (the verified identity's `tenant`), at most 256 bytes;
    /// `nil` for a provider without tenants.
    public let tenant: String?
    /// When the session was last used, as the server last wrote it (it writes it at most so often, see
    /// ``SessionStore/touchSession(id:lastUsedAt:)``); the creation time until then.
    public let lastUsedAt: Date
    /// A short summary of the browser or app that signed in (e.g. `Chrome on Linux`), at most
    /// 64 bytes; never the raw `User-Agent`.
    public let agent: String?
    /// When the user authenticated at the provider (the id_token's `auth_time`), when it said; step-up checks
    /// (`/auth/check?max_age=…`) read it.
    package private(set) var authTime: Date? = nil
    /// The authentication context class the provider reported (the id_token's `acr`, at most
    /// ``maximumACRBytes``), when it said; step-up checks (`/auth/check?acr=…`) read it.
    package private(set) var acr: String? = nil

    /// The most groups a session keeps.
    package static let maximumGroups = 64
    /// The longest group name a session keeps, in UTF-8 bytes.
    package static let maximumGroupBytes = 256
    /// The longest agent summary a session keeps, in UTF-8 bytes.
    package static let maximumAgentBytes = 64
    /// The longest `acr` a session keeps, in UTF-8 bytes.
    package static let maximumACRBytes = 255

    /// This record with the authentication's time and class (`nil` leaves none); an `acr` longer than
    /// ``maximumACRBytes`` or empty is not kept.
    package func authenticated(at authTime: Date?, acr: String?) -> SessionRecord {
        var record = self
        record.authTime = authTime
        record.acr = acr.flatMap { $0.isEmpty || $0.utf8.count > Self.maximumACRBytes ? nil : $0 }
        return record
    }

    /// Creates a session record; `lastUsedAt` defaults to `createdAt`.
    public init(
        userID: UserID, provider: String, subject: String, createdAt: Date, expiresAt: Date,
        providerSessionID: String? = nil, kind: SessionKind = .cookie, groups: [String] = [],
        lastUsedAt: Date? = nil, agent: String? = nil, roles: [String] = [], tenant: String? = nil
    ) {
        self.kind = kind
        self.userID = userID
        self.provider = provider
        self.subject = subject
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.providerSessionID = providerSessionID
        self.groups = groups
        self.roles = roles
        self.tenant = tenant
        self.lastUsedAt = lastUsedAt ?? createdAt
        self.agent = agent
    }

    /// The `(provider, subject)` of the identity the user signed in with.
    package var identity: IdentityKey { IdentityKey(provider: provider, subject: subject) }

    /// This record with `lastUsedAt` set to `date`.
    package func used(at date: Date) -> SessionRecord {
        SessionRecord(
            userID: userID, provider: provider, subject: subject, createdAt: createdAt, expiresAt: expiresAt,
            providerSessionID: providerSessionID, kind: kind, groups: groups, lastUsedAt: date, agent: agent,
            roles: roles, tenant: tenant
        ).authenticated(at: authTime, acr: acr)
    }

    /// `groups` within the bounds a session keeps: empty names and names over ``maximumGroupBytes`` dropped,
    /// duplicates dropped, at most ``maximumGroups`` kept in order; `dropped` counts what was left out.
    package static func boundedGroups(_ groups: [String]) -> (groups: [String], dropped: Int) {
        var kept: [String] = []
        var seen = Set<String>()
        for group in groups where !group.isEmpty && group.utf8.count <= maximumGroupBytes {
            guard kept.count < maximumGroups else { break }
            if seen.insert(group).inserted { kept.append(group) }
        }
        return (kept, groups.count - kept.count)
    }
}

/// A live session as ``SessionStore/sessions(userID:)`` lists it: its record and the SHA-256 digest of its id
/// (what the store keys it by; the id itself is never stored).
public struct StoredSession: Sendable, Hashable {
    /// SHA-256 of the session id: names the session to ``SessionStore/deleteSession(digest:)``.
    public let digest: [UInt8]
    /// The stored session.
    public let record: SessionRecord

    /// Creates a listed session.
    public init(digest: [UInt8], record: SessionRecord) {
        self.digest = digest
        self.record = record
    }
}

extension SessionRecord {
    /// The stored form of `groups`: a JSON array of strings, `nil` when there are none (how the SQL and Redis
    /// stores write them).
    package static func encodeGroups(_ groups: [String]) -> String? {
        groups.isEmpty ? nil : JSONValue.array(groups.map(JSONValue.string)).serialized()
    }

    /// The groups of their stored form (``encodeGroups(_:)``); `nil` stored means none.
    ///
    /// - Throws: `StoreError` `corruptData` when the text is not a JSON array of strings.
    package static func decodeGroups(_ text: String?, operation: String) throws(StoreError) -> [String] {
        guard let text else { return [] }
        guard let items = (try? JSONValue.parse(Array(text.utf8)))?.arrayValue else {
            throw StoreError(
                .corruptData, "expected a JSON array of session groups, found other text", operation: operation)
        }
        var groups: [String] = []
        for item in items {
            guard let group = item.stringValue else {
                throw StoreError(
                    .corruptData, "expected a JSON array of session groups, found a non-string item",
                    operation: operation)
            }
            groups.append(group)
        }
        return groups
    }
}

extension SessionRecord {
    /// The stored form of `groups`, `roles` and `tenant` in the one column that held groups alone (no schema
    /// change): the JSON array of ``encodeGroups(_:)`` when there are neither roles nor a tenant, so such a
    /// session reads as before; otherwise a JSON object `{"groups": [...], "roles": [...], "tenant": "..."}`.
    package static func encodeMemberships(
        groups: [String], roles: [String], tenant: String?, authTime: Date? = nil, acr: String? = nil
    ) -> String? {
        guard !roles.isEmpty || tenant != nil || authTime != nil || acr != nil else { return encodeGroups(groups) }
        var object: [String: JSONValue] = ["groups": .array(groups.map(JSONValue.string))]
        if !roles.isEmpty { object["roles"] = .array(roles.map(JSONValue.string)) }
        if let tenant { object["tenant"] = .string(tenant) }
        // The authentication's time (seconds) and class ride in the same column (no schema change).
        if let authTime { object["auth_time"] = .integer(Int64(authTime.timeIntervalSince1970.rounded(.down))) }
        if let acr { object["acr"] = .string(acr) }
        return JSONValue.object(object).serialized()
    }

    /// The stored form of `record`'s groups, roles, tenant, `auth_time` and `acr` (``encodeMemberships(groups:roles:tenant:authTime:acr:)``).
    package static func encodeMemberships(of record: SessionRecord) -> String? {
        encodeMemberships(
            groups: record.groups, roles: record.roles, tenant: record.tenant, authTime: record.authTime,
            acr: record.acr)
    }

    /// The `auth_time` and `acr` of the stored form (``encodeMemberships(of:)``); `nil`s for the array form or none.
    ///
    /// - Throws: `StoreError` `corruptData` when they are present but not an integer and a string.
    package static func decodeAuthentication(_ text: String?, operation: String) throws(StoreError) -> (
        authTime: Date?, acr: String?
    ) {
        guard let text, text.hasPrefix("{"), case .object(let object)? = try? JSONValue.parse(Array(text.utf8)) else {
            return (nil, nil)
        }
        let authTime = object["auth_time"]
        let acr = object["acr"]
        guard authTime == nil || authTime?.int64Value != nil, acr == nil || acr?.stringValue != nil else {
            throw StoreError(
                .corruptData, "expected a session's auth_time to be an integer and acr a string, found other values",
                operation: operation)
        }
        return (authTime?.int64Value.map { Date(timeIntervalSince1970: Double($0)) }, acr?.stringValue)
    }

    /// The groups, roles and tenant of their stored form (``encodeMemberships(groups:roles:tenant:)``), the
    /// array form (groups only) included; `nil` stored means none.
    ///
    /// - Throws: `StoreError` `corruptData` when the text is neither a JSON array of strings nor such an object.
    package static func decodeMemberships(_ text: String?, operation: String) throws(StoreError) -> (
        groups: [String], roles: [String], tenant: String?
    ) {
        guard let text, text.hasPrefix("{") else { return (try decodeGroups(text, operation: operation), [], nil) }
        let corrupt = StoreError(
            .corruptData, "expected a JSON object of session groups, roles and tenant, found other text",
            operation: operation)
        guard case .object(let object)? = try? JSONValue.parse(Array(text.utf8)) else { throw corrupt }
        func strings(_ key: String) throws(StoreError) -> [String] {
            guard let value = object[key] else { return [] }
            guard let items = value.arrayValue else { throw corrupt }
            var strings: [String] = []
            for item in items {
                guard let string = item.stringValue else { throw corrupt }
                strings.append(string)
            }
            return strings
        }
        let tenant = object["tenant"]
        guard tenant == nil || tenant?.stringValue != nil else { throw corrupt }
        return (try strings("groups"), try strings("roles"), tenant?.stringValue)
    }
}
