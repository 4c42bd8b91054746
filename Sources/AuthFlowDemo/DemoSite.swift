package import AuthFlowSandbox
package import AuthFlowServer

/// The sandbox demo (`authflow demo`, `serve --sandbox`): the sign-in server's routes plus the demo home
/// page `GET /`, the capability matrix of the configured providers `GET /matrix` and the passkey script
/// `GET /passkeys.js`.
///
/// The home page shows sign-in links when signed out; when signed in, the verified identity, the trace of
/// the sign-in (the server must keep traces: `keepsTraces: true`), a
/// sign-out button, links to link the other providers and, with a sandbox, buttons that make the sandbox
/// send the signed-in identity's provider events to this app (`SandboxEventSender`).
/// Element ids are a contract of the browser tests: `signin-{name}`, `identity`, `user_id`, `provider`,
/// `subject`, `email`, `name`, `trace`, `signout`, `matrix`, `events`.
package struct DemoSite: Sendable {
    /// The sign-in server every other path goes to.
    package let server: SignInServer
    /// The sandbox whose event senders the home page offers, if any.
    package let sandbox: SandboxIdentityProvider?

    /// Wraps `server`; with `sandbox`, the home page offers that sandbox's event senders.
    package init(server: SignInServer, sandbox: SandboxIdentityProvider? = nil) {
        self.server = server
        self.sandbox = sandbox
    }

    /// Answers `/` and `/matrix` (GET or HEAD; 405 `method_not_allowed` otherwise) and hands every other
    /// request to the sign-in server.
    package func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        switch request.path {
        case "/":
            return await server.respond(to: request, route: "/") { request throws(ServerError) in
                try Self.requireGET(request)
                if let redirect = server.publicOriginRedirect(request) { return redirect }
                return try await homePage(request)
            }
        case "/matrix":
            return await server.respond(to: request, route: "/matrix") { request throws(ServerError) in
                try Self.requireGET(request)
                return matrixPage()
            }
        case "/passkeys.js":
            return await server.respond(to: request, route: "/passkeys.js") { request throws(ServerError) in
                try Self.requireGET(request)
                return passkeyScript()
            }
        default:
            return await server.handle(request)
        }
    }

    static func requireGET(_ request: HTTPServerRequest) throws(ServerError) {
        guard request.method == "GET" || request.method == "HEAD" else {
            throw ServerError(.methodNotAllowed, "expected GET, found \(request.method.prefix(16))", status: 405)
        }
    }
}
