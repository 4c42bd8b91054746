import Testing

@testable import AuthFlowJOSE

@Suite("Base64URL")
struct EncodingTests {
    @Test func base64URLRoundTripsEveryLength() throws {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(try Base64URL.decode(text) == bytes)
        }
    }

    @Test(arguments: ["QQ==", "QQ=", "Q Q", "QQ\n", "Q+", "Q/", "Q", "QR", "QUJ", "QUJD*"])
    func base64URLRefusesNonCanonicalText(text: String) {
        let error = joseError { () throws(JOSEError) in _ = try Base64URL.decode(text) }
        #expect(error?.code == .invalidBase64URL)
    }

    @Test func base64URLNamesTheOffendingCharacter() {
        let error = joseError { () throws(JOSEError) in _ = try Base64URL.decode("AAAA==") }
        #expect(error?.message.contains("padding") == true)
        let space = joseError { () throws(JOSEError) in _ = try Base64URL.decode("AAA AAAA") }
        #expect(space?.message.contains("whitespace") == true)
    }
}
