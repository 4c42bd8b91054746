import Testing

@testable import AuthFlowServer

@Suite struct ReturnToPolicyTests {
    let policy = ReturnToPolicy(allowed: ["/app", "/docs/", "https://shop.example.com"])

    @Test func acceptsPathsUnderAllowedPrefixes() throws {
        #expect(try policy.validate("/app") == "/app")
        #expect(try policy.validate("/app/inbox?tab=1#top") == "/app/inbox?tab=1#top")
        #expect(try policy.validate("/app?x=%20") == "/app?x=%20")
        #expect(try policy.validate("/docs/a/b") == "/docs/a/b")
        #expect(try policy.validate(nil) == nil)
        #expect(try policy.validate("") == nil)
    }

    @Test func acceptsExactAllowedOrigins() throws {
        #expect(try policy.validate("https://shop.example.com") == "https://shop.example.com")
        #expect(try policy.validate("https://SHOP.example.com:443/cart") == "https://SHOP.example.com:443/cart")
    }

    @Test(arguments: [
        "/application", "/docs", "/", "//app", "/\\app", "/app/../admin", "/app/./x", "/app/%2e%2e/admin",
        "/app%2f..%2fadmin", "/app/%5c", "/app/\u{7f}", "/app/é", "/app /x", "https://shop.example.com.evil.io/",
        "https://user@shop.example.com/", "http://shop.example.com/", "https://shop.example.com//evil.io",
        "javascript://shop.example.com/%0aalert(1)", "data:text/html,x", "app", "https://shop.example.com\\@evil.io",
        "/app/%252f", "/app/%0d%0aSet-Cookie:x",
    ])
    func refuses(value: String) {
        #expect(throws: ServerError.self) { try policy.validate(value) }
    }

    @Test func refusesOverlongValues() {
        #expect(throws: ServerError.self) {
            try policy.validate("/app/" + String(repeating: "a", count: ReturnToPolicy.maximumLength))
        }
    }

    @Test func rootPrefixAllowsEveryLocalPathButNoOtherHost() throws {
        let root = ReturnToPolicy(allowed: ["/"])
        #expect(try root.validate("/anything/here") == "/anything/here")
        #expect(throws: ServerError.self) { try root.validate("//evil.example") }
        #expect(throws: ServerError.self) { try root.validate("https://evil.example") }
    }
}
