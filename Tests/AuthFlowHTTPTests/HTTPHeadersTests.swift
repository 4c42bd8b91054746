import Testing

@testable import AuthFlowHTTP

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test func looksUpNamesCaseInsensitively() {
        let headers: HTTPHeaders = ["Content-Type": "text/plain"]
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers["Content-Length"] == nil)
        #expect(headers.contains("content-TYPE"))
    }

    @Test func foldsOnlyASCIILettersWhenComparingNames() {
        let headers: HTTPHeaders = ["X-Ä": "umlaut", "a[": "bracket", "X-Long-Header-Name-Beyond-Small": "long"]
        #expect(headers["x-Ä"] == "umlaut")
        #expect(headers["x-ä"] == nil)  // non-ASCII bytes are compared as they are
        #expect(headers["A{"] == nil)  // `[` and `{` differ by the case bit but are not letters
        #expect(headers["x-long-header-name-beyond-small"] == "long")
        #expect(headers["x-long-header-name-beyond-smalL"] == "long")
        #expect(headers["x-long-header-name-beyond-smal"] == nil)
        #expect(headers["x-long-header-name-beyond-smalk"] == nil)
    }

    @Test func keepsSeveralValuesInOrder() {
        var headers = HTTPHeaders()
        headers.add("Set-Cookie", "a=1")
        headers.add("X-Other", "x")
        headers.add("set-cookie", "b=2")
        #expect(headers.values("SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["Set-Cookie"] == "a=1")
        #expect(headers.map(\.name) == ["Set-Cookie", "X-Other", "set-cookie"])
        #expect(headers.count == 3)
    }

    @Test func subscriptSetReplacesAllAtFirstPosition() {
        var headers: HTTPHeaders = ["A": "1", "B": "2"]
        headers.add("a", "3")
        headers["A"] = "new"
        #expect(headers.map(\.name) == ["A", "B"])
        #expect(headers.values("a") == ["new"])
        headers["b"] = nil
        #expect(headers.map(\.value) == ["new"])
        headers.remove("A")
        #expect(headers.isEmpty)
    }

    @Test func subscriptSetReplacesOneFieldInPlaceAndAppendsANewName() {
        var headers: HTTPHeaders = ["A": "1", "B": "2", "C": "3"]
        headers["b"] = "new"
        #expect(headers.map(\.name) == ["A", "b", "C"])
        #expect(headers.map(\.value) == ["1", "new", "3"])
        headers["D"] = "4"
        #expect(headers.map(\.name) == ["A", "b", "C", "D"])
        headers["a"] = nil
        #expect(headers.map(\.name) == ["b", "C", "D"])
        headers["Missing"] = nil
        #expect(headers.count == 3)
        headers.add("c", "5")
        headers["C"] = nil
        #expect(headers.map(\.name) == ["b", "D"])
    }

    @Test func equalityIgnoresNameCase() {
        #expect(HTTPHeaders([("a", "1")]) == HTTPHeaders([("A", "1")]))
        #expect(HTTPHeaders([("a", "1")]) != HTTPHeaders([("a", "2")]))
    }

    @Test func refusesCRLFAndNULInAValueAtEveryPositionOfEveryWord() {
        // Values of 1 to 40 bytes, one byte of every value at every position: the word-at-a-time scan must find a
        // CR, LF or NUL wherever it is (inside a word, in the tail, next to a tab) and let every other byte pass.
        for length in 1...40 {
            for position in 0..<length {
                for byte in UInt8(0)...UInt8(127) {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = byte
                    if position > 0 { bytes[position - 1] = 0x09 }
                    let value = String(decoding: bytes, as: UTF8.self)
                    let forbidden = byte == 0x0D || byte == 0x0A || byte == 0x00
                    #expect(HTTPHeaders.isValidValue(value) == !forbidden, "byte \(byte) at \(position) of \(length)")
                }
            }
        }
        #expect(HTTPHeaders.isValidValue(String(repeating: "\u{E9}\t ~", count: 20)))
        #expect(!HTTPHeaders.isValidValue(String(repeating: "\u{E9}\t ~", count: 20) + "\r\n"))
        #expect(HTTPHeaders.isValidValue(""))
    }
}
