import AuthFlowHTTP
import Testing

@Suite("FormURLEncoding")
struct FormURLEncodingTests {
    @Test func encodesSpacesAsPlusAndReservedBytesAsUpperHex() {
        #expect(
            FormURLEncoding.encode([("a b", "x+y&z=1"), ("ü", "~-._*/")])
                == "a+b=x%2By%26z%3D1&%C3%BC=~-._%2A%2F")
    }

    @Test func decodesPlusAndEscapes() {
        let fields = FormURLEncoding.decode("a+b=x%2By%26z%3D1&%C3%BC=%7e&empty=&flag&&=v")
        #expect(fields.map(\.0) == ["a b", "ü", "empty", "flag", ""])
        #expect(fields.map(\.1) == ["x+y&z=1", "~", "", "", "v"])
    }

    @Test func roundTripsArbitraryText() {
        let fields = [("redirect_uri", "https://app.example/cb?x=1&y=2#f"), ("code", "4/0A+b c%")]
        let decoded = FormURLEncoding.decode(FormURLEncoding.encode(fields))
        #expect(decoded.map(\.0) == fields.map(\.0))
        #expect(decoded.map(\.1) == fields.map(\.1))
    }

    @Test(arguments: [("%", "%"), ("%4", "%4"), ("%zz", "%zz"), ("a%2", "a%2"), ("%%41", "%A"), ("%C3", "\u{FFFD}")])
    func keepsMalformedEscapesLiterally(input: String, expected: String) {
        #expect(FormURLEncoding.unescape(input) == expected)
    }

    @Test func valueMayContainEquals() {
        #expect(FormURLEncoding.decode("a=b=c").first?.1 == "b=c")
    }

    @Test func valuesOfOneFieldDecodeThatFieldOnly() {
        let body = Array("a&return_to=%2Fx&&return%5Fto=y+z&return_to&b=%ZZ&return_tox=1".utf8)
        #expect(FormURLEncoding.values(named: "return_to", in: body) == ["/x", "y z", ""])
        #expect(FormURLEncoding.values(named: "missing", in: body).isEmpty)
        #expect(FormURLEncoding.values(named: "a", in: body) == [""])
    }
}
