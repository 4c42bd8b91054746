import Testing

@testable import AuthFlow

@Suite struct QueryStringTests {
    @Test func percentEncodesEveryByteOutsideTheUnreservedSetInUppercaseHex() {
        let encoded = QueryString.encode([
            ("scope", "openid email"), ("redirect_uri", "https://a.example/cb?x=1&y=\u{E4}"),
            ("unreserved", "AZaz09-._~"), ("controls", "\u{0}\u{1F}\u{7F}+/"),
        ])
        #expect(
            encoded
                == "scope=openid%20email&redirect_uri=https%3A%2F%2Fa.example%2Fcb%3Fx%3D1%26y%3D%C3%A4"
                + "&unreserved=AZaz09-._~&controls=%00%1F%7F%2B%2F")
        #expect(
            QueryString.appending([("a", "b c")], to: "https://p.example/auth?x=1")
                == "https://p.example/auth?x=1&a=b%20c")
        #expect(QueryString.appending([("a", "b")], to: "https://p.example/auth") == "https://p.example/auth?a=b")
        #expect(QueryString.appending([], to: "https://p.example/auth") == "https://p.example/auth")
    }

    @Test func encodesEveryByteAsTheUnreservedSetSays() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for byte in UInt8(0)...UInt8(255) {
            #expect(QueryString.isUnreserved(byte) == unreserved.contains(byte), "byte \(byte)")
        }
        // Every code point below 0x800 (one and two UTF-8 bytes) as a value: each byte kept or written as %XX.
        let text = String(String.UnicodeScalarView((0..<0x800).compactMap(Unicode.Scalar.init)))
        var expected = "https://p.example/\u{E4}?x=1&k%20%C3%A4="
        for byte in text.utf8 {
            expected +=
                unreserved.contains(byte)
                ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }
        expected += "&e="
        #expect(QueryString.appending([("k \u{E4}", text), ("e", "")], to: "https://p.example/\u{E4}?x=1") == expected)
        #expect(QueryString.encode([]) == "")
        #expect(QueryString.encode([("", "")]) == "=")
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
