import AuthFlowHTTP
import FuzzSupport

@testable import AuthFlowServer

/// The `Cookie` header as the server reads it, and every value it yields opened as the flow cookie: no
/// crash, and no value opens without the server's key.
let flowCookie = FlowCookie(secret: Array("fuzz-secret-0123456789abcdef-0123456789".utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookie(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    var headers = HTTPHeaders()
    for line in text(data, count).split(separator: "\n", maxSplits: 4) {
        headers.add("Cookie", String(line))
    }
    let request = HTTPServerRequest(method: "GET", path: "/", headers: headers)
    for (name, value) in request.cookies() {
        if name.isEmpty { fatalError("a cookie without a name") }
        _ = flowCookie.open(value)
    }
    return 0
}
