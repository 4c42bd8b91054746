import Foundation

@testable import AuthFlowJOSE

/// Reads files from the test bundle's `Fixtures` folder.
enum Fixtures {
    static func url(_ relativePath: String) throws -> URL {
        guard let base = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw FixtureError(message: "the Fixtures folder is missing from the test bundle")
        }
        return base.appendingPathComponent(relativePath)
    }

    static func json(_ relativePath: String) throws -> JSONValue {
        let data = try Data(contentsOf: try url(relativePath))
        return try JSONValue.parse([UInt8](data))
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

extension Array where Element == UInt8 {
    init(hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            default: return c - UInt8(ascii: "A") + 10
            }
        }
        while let high = iterator.next(), let low = iterator.next() { bytes.append(nibble(high) << 4 | nibble(low)) }
        self = bytes
    }
}
