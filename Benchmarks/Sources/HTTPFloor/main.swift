// The floor of `authflow serve`'s HTTP layer: AuthFlowHTTP's server (libmicrohttpd, the request and response
// types, the handler executor) answering the routes `server.sh` measures with fixed responses, so the
// difference between this and `authflow serve` is what the sign-in server's own work costs.
//   GET /auth/check         202 from the immediate handler, on the polling thread with no task, the path a
//                           cached session check takes in `authflow serve`
//   GET /auth/google/login  302 with the Location and Set-Cookie nginx's configuration sends, from the async
//                           handler (a task per request), the path a sign-in start takes
//   anything else           404
// Usage: HTTPFloor PORT   Serves on 127.0.0.1:PORT until it is killed; prints "ready" once listening.
// The immediate handler is the package's own (the sign-in server's fast path), so this reaches it with @testable and
// server.sh builds with -enable-testing.
import AuthFlowHTTP
import Foundation

@testable import AuthFlowHTTPServer

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let port = Int(arguments.first!), (1...65535).contains(port) else {
    FileHandle.standardError.write(Data("usage: HTTPFloor PORT (1-65535)\n".utf8))
    exit(2)
}

let location = "http://127.0.0.1:9/o/oauth2/v2/auth?response_type=code&client_id=bench&state=0123456789abcdef"
let cookie = "authflow_flow=bench0123456789abcdef0123456789abcdef; Path=/auth/; Max-Age=600; HttpOnly; SameSite=Lax"

let server = HTTPServer(
    configuration: .init(host: "127.0.0.1", port: port),
    immediate: { request in
        guard request.method == "GET", request.path == "/auth/check" else { return nil }
        return .empty(status: 202)
    },
    handler: { request in
        guard request.method == "GET", request.path == "/auth/google/login" else { return .empty(status: 404) }
        var response = HTTPServerResponse.redirect(to: location)
        response.addCookie(cookie)
        return response
    })
do {
    try server.start()
} catch {
    FileHandle.standardError.write(Data("HTTPFloor: \(error)\n".utf8))
    exit(1)
}
FileHandle.standardOutput.write(Data("ready\n".utf8))
while true { sleep(3600) }
