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
}
