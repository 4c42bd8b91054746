import AuthFlow
import Foundation

/// The stored form of a `SessionRecord`: each field as `<byte count>:<bytes>`, so any text round-trips; the
/// provider session id as `+<sid>`, or `-` when there is none; a bearer session adds the field `bearer` (a
/// record of seven fields, as written before session kinds, is a cookie session).
enum RedisSessionRecord {
    static func encode(_ record: SessionRecord) -> [UInt8] {
        let fields =
            [
                "1", String(record.createdAt.timeIntervalSince1970), String(record.expiresAt.timeIntervalSince1970),
                record.userID.rawValue, record.provider, record.subject,
                record.providerSessionID.map { "+" + $0 } ?? "-",
            ] + (record.kind == .cookie ? [] : [record.kind.rawValue])
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
        guard fields.count == 7 || fields.count == 8, fields[0] == "1", let created = Double(fields[1]),
            let expires = Double(fields[2]),
            let kind = fields.count == 8 ? SessionKind(rawValue: fields[7]) : .cookie
        else { throw corrupt(operation) }
        return SessionRecord(
            userID: UserID(rawValue: fields[3]), provider: fields[4], subject: fields[5],
            createdAt: Date(timeIntervalSince1970: created), expiresAt: Date(timeIntervalSince1970: expires),
            providerSessionID: fields[6].hasPrefix("+") ? String(fields[6].dropFirst()) : nil, kind: kind)
    }

    private static func corrupt(_ operation: String) -> StoreError {
        StoreError(.corruptData, "expected a stored session record, found other bytes", operation: operation)
    }
}
