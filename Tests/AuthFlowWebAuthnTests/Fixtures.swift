import AuthFlowJOSE
import Foundation

/// Reads files from the test bundle's `Fixtures` folder.
enum Fixtures {
    static func json(_ name: String) throws -> JSONValue {
        guard let base = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw FixtureError(description: "the Fixtures folder is missing from the test bundle")
        }
        let data = try Data(contentsOf: base.appendingPathComponent(name))
        return try JSONValue.parse([UInt8](data))
    }

    /// Bytes from base64 or base64url, padded or not, as the copied sources write them (test data only: the
    /// verifier itself reads strict unpadded base64url).
    static func base64(_ text: String) throws -> [UInt8] {
        var normalized = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while normalized.hasSuffix("=") { normalized.removeLast() }
        return try Base64URL.decode(normalized)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}
