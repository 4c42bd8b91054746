import AuthFlowStores
import Foundation

/// The stored form of a `SessionRecord`: each field as `<byte count>:<bytes>`, so any text round-trips; the
/// provider session id as `+<sid>`, or `-` when there is none; a record of another kind than a cookie session adds
/// the kind's raw value (`bearer`, `rotated`; a record of seven fields, as written before session kinds, is a
/// cookie session). A session with groups, roles, a tenant, an agent summary or a last use after its creation has
/// eleven fields: the kind always, then the groups (their JSON array, or with roles or a tenant the object of
/// `SessionRecord.encodeMemberships`, which also carries the authentication's `auth_time` and `acr`; empty for none), the last use time and the agent (`+<agent>`, or `-`).
/// Records of seven or eight fields stay readable, and are what a session without these is still written as.
enum RedisSessionRecord {
    static func encode(_ record: SessionRecord) -> [UInt8] {
        var fields = [
            "1", String(record.createdAt.timeIntervalSince1970), String(record.expiresAt.timeIntervalSince1970),
            record.userID.rawValue, record.provider, record.subject,
            record.providerSessionID.map { "+" + $0 } ?? "-",
        ]
        let extended =
            !record.groups.isEmpty || !record.roles.isEmpty || record.tenant != nil || record.agent != nil
            || record.lastUsedAt != record.createdAt || record.authTime != nil || record.acr != nil
        if extended || record.kind != .cookie { fields.append(record.kind.rawValue) }
        if extended {
            fields += [
                SessionRecord.encodeMemberships(of: record) ?? "", String(record.lastUsedAt.timeIntervalSince1970),
                record.agent.map { "+" + $0 } ?? "-",
            ]
        }
        var output: [UInt8] = []
        for field in fields {
            output += Array("\(field.utf8.count):".utf8) + Array(field.utf8)
        }
        return output
    }

    static func decode(_ bytes: [UInt8], operation: String) throws(StoreError) -> SessionRecord {
        var fields: [String] = []
        var index = 0
        while index < bytes.count {
            guard let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")),
                let count = Int(String(decoding: bytes[index..<colon], as: UTF8.self)), count >= 0,
                count <= bytes.count - colon - 1
            else { throw corrupt(operation) }
            fields.append(String(decoding: bytes[(colon + 1)..<(colon + 1 + count)], as: UTF8.self))
            index = colon + 1 + count
        }
        guard fields.count == 7 || fields.count == 8 || fields.count == 11, fields[0] == "1",
            let created = Double(fields[1]), let expires = Double(fields[2]),
            let kind = fields.count >= 8 ? SessionKind(rawValue: fields[7]) : .cookie
        else { throw corrupt(operation) }
        var memberships: (groups: [String], roles: [String], tenant: String?) = ([], [], nil)
        var lastUsed: Date?
        var agent: String?
        var authentication: (authTime: Date?, acr: String?) = (nil, nil)
        if fields.count == 11 {
            memberships = try SessionRecord.decodeMemberships(fields[8].isEmpty ? nil : fields[8], operation: operation)
            authentication = try SessionRecord.decodeAuthentication(
                fields[8].isEmpty ? nil : fields[8], operation: operation)
            guard let used = Double(fields[9]) else { throw corrupt(operation) }
            lastUsed = Date(timeIntervalSince1970: used)
            agent = fields[10].hasPrefix("+") ? String(fields[10].dropFirst()) : nil
        }
        return SessionRecord(
            userID: UserID(rawValue: fields[3]), provider: fields[4], subject: fields[5],
            createdAt: Date(timeIntervalSince1970: created), expiresAt: Date(timeIntervalSince1970: expires),
            providerSessionID: fields[6].hasPrefix("+") ? String(fields[6].dropFirst()) : nil, kind: kind,
            groups: memberships.groups, lastUsedAt: lastUsed, agent: agent, roles: memberships.roles,
            tenant: memberships.tenant
        ).authenticated(at: authentication.authTime, acr: authentication.acr)
    }

    private static func corrupt(_ operation: String) -> StoreError {
        StoreError(.corruptData, "expected a stored session record, found other bytes", operation: operation)
    }
}
