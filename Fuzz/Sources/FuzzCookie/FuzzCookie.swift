import AuthFlow
import AuthFlowJOSE
import FuzzSupport

// `@testable`: the cookie name list (`cookieNames()`) is package API, fuzzed here with the cookie parser.
@testable import AuthFlowHTTP

/// The `Cookie` header as the server reads it, and every value it yields opened as a flow cookie: no crash,
/// and no value opens without the server's key.
let seal: FlowRecordSeal = {
    do {
        return try FlowRecordSeal(
            secret: Array("fuzz-secret-0123456789abcdef-0123456789".utf8), random: SystemRandom())
    } catch {
        fatalError("the fuzz flow-cookie key cannot be derived: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookie(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    var headers = HTTPHeaders()
    for line in text(data, count).split(separator: "\n", maxSplits: 4) {
        headers.add("Cookie", String(line))
    }
    let request = HTTPServerRequest(method: "GET", path: "/", headers: headers, remoteAddress: "127.0.0.1")
    let names = request.cookieNames()
    for (name, value) in request.cookies() {
        if name.isEmpty { fatalError("a cookie without a name") }
        if !names.contains(name) { fatalError("a cookie whose name the name list lacks") }
        if seal.open(value, cookieName: name, provider: "google") != nil {
            fatalError("a cookie the fuzzer wrote opened as a sealed flow record")
        }
    }
    return 0
}
