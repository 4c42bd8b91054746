import AuthFlowHTTP
import Testing

@Suite("HTTPServerRequest and HTTPServerResponse values")
struct HTTPServerRequestTests {
    @Test func readsFormFieldsOnlyFromFormBodies() throws {
        let form = HTTPServerRequest(
            method: "POST", path: "/cb", headers: ["Content-Type": "Application/X-WWW-Form-Urlencoded ; charset=UTF-8"],
            body: Array("state=a%2Bb&code=x+y".utf8), remoteAddress: "127.0.0.1")
        #expect(try form.formValue("state") == "a+b")
        #expect(try form.formValue("code") == "x y")
        let json = HTTPServerRequest(
            method: "POST", path: "/cb", headers: ["Content-Type": "application/json"], body: [],
            remoteAddress: "127.0.0.1")
        #expect(
            throws: HTTPServerError(
                code: .unsupportedMediaType,
                message: "expected an application/x-www-form-urlencoded body, found application/json")
        ) {
            try json.formFields()
        }
        let none = HTTPServerRequest(method: "POST", path: "/cb", body: Array("a=1".utf8), remoteAddress: "127.0.0.1")
        #expect(throws: HTTPServerError.self) { try none.formFields() }
    }

    @Test func acceptsJSONMediaTypes() throws {
        let body = Array("{}".utf8)
        let plain = HTTPServerRequest(
            method: "POST", path: "/", headers: ["Content-Type": "application/json"], body: body,
            remoteAddress: "127.0.0.1")
        let problem = HTTPServerRequest(
            method: "POST", path: "/", headers: ["Content-Type": "application/problem+json"], body: body,
            remoteAddress: "127.0.0.1")
        #expect(try plain.jsonBody() == body)
        #expect(try problem.jsonBody() == body)
        let text = HTTPServerRequest(
            method: "POST", path: "/", headers: ["Content-Type": "text/plain"], body: body, remoteAddress: "127.0.0.1")
        #expect(throws: HTTPServerError.self) { try text.jsonBody() }
    }

    @Test func parsesCookiesFromSeveralHeaders() {
        var headers = HTTPHeaders()
        headers.add("Cookie", "a=1; b=\"q\"")
        headers.add("cookie", "a=2;c=;=x; d")
        let request = HTTPServerRequest(method: "GET", path: "/", headers: headers, remoteAddress: "127.0.0.1")
        #expect(request.cookies() == ["a": "1", "b": "q", "c": ""])
    }

    @Test func parsesCookieEdgesByteForByte() {
        var headers = HTTPHeaders()
        // Tabs and spaces trimmed, `=` inside a value kept, a lone quote not unquoted, empty pieces and
        // names skipped, non-ASCII bytes carried over intact.
        headers.add("Cookie", ";;\t s = a=b ;q=\";  e=\"\";u=é€;  ; =y;z")
        let request = HTTPServerRequest(method: "GET", path: "/", headers: headers, remoteAddress: "127.0.0.1")
        #expect(request.cookies() == ["s": "a=b", "q": "\"", "e": "", "u": "é€"])
    }

    @Test func findsEveryValueOfOneCookieNameExactly() {
        var headers = HTTPHeaders()
        headers.add("Cookie", " sid=1; sidx=2; SID=3;\tsid = \"4\" ; s=5; u=é€")
        headers.add("Cookie", "sid=6;=7; id=8")
        let request = HTTPServerRequest(method: "GET", path: "/", headers: headers, remoteAddress: "127.0.0.1")
        // Every value under exactly that name, in order: no prefix match, no case folding, quotes removed.
        #expect(request.cookieValues("sid") == ["1", "4", "6"])
        #expect(request.cookieValues("u") == ["é€"])
        #expect(request.cookieValues("id") == ["8"])
        #expect(request.cookieValues("").isEmpty)
        #expect(request.cookieValues("absent").isEmpty)
        #expect(request.cookieNames() == ["sid", "sidx", "SID", "sid", "s", "u", "sid", "id"])
    }

    @Test func queryValueReturnsFirst() {
        let request = HTTPServerRequest(
            method: "GET", path: "/", query: [("a", "1"), ("a", "2")], remoteAddress: "127.0.0.1")
        #expect(request.queryValue("a") == "1")
        #expect(request.queryValue("b") == nil)
    }

    @Test func buildsJSONErrorsWithEscaping() {
        let response = HTTPServerResponse.error(
            "bad", message: "quote \" backslash \\ newline \n ctl \u{1}", status: 400)
        #expect(response.status == 400)
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == #"{"error":"bad","message":"quote \" backslash \\ newline \n ctl \u0001"}"#)
        let controls = HTTPServerResponse.error("bad", message: "\u{8}\u{C}\t\r\u{1F}\u{7F}é", status: 400)
        #expect(
            String(decoding: controls.body, as: UTF8.self)
                == "{\"error\":\"bad\",\"message\":\"\\b\\f\\t\\r\\u001f\u{7F}é\"}")
        #expect(HTTPServerResponse.redirect(to: "/home").headers["Location"] == "/home")
        #expect(HTTPServerResponse.redirect(to: "/home").status == 302)
        #expect(HTTPServerResponse.empty().status == 204)
    }
}

@Suite struct OAuthErrorBodyTests {
    @Test func writesRFC6749ErrorBodyEscapedAndUncached() {
        let response = HTTPServerResponse.oauthError(
            "invalid_request", description: "expected a \"logout_token\", found none\n", status: 400)
        #expect(response.status == 400)
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == #"{"error":"invalid_request","error_description":"expected a \"logout_token\", found none\n"}"#)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
    }
}
