import AuthFlow
import AuthFlowHTTP

extension SignInServer {
    /// `GET /auth/{provider}/login|register|link`: validates `return_to`, binds the flow to this browser
    /// (flow cookie), stores the flow and redirects (302) to the provider.
    ///
    /// `link` needs a session (401 `not_signed_in` otherwise); the identity is attached to the user that is
    /// signed in when the callback arrives.
    func beginSignIn(_ request: HTTPServerRequest, provider name: String, intent: SignInIntent)
        async throws(ServerError)
        -> HTTPServerResponse
    {
        _ = try provider(name)
        let returnTo = try returnToPolicy.validate(try Self.returnToParameter(request))
        if intent == .link {
            _ = try await requireSession(request)
        } else if intent == .register, !options.signup {
            throw Self.signupDisabled
        }
        let binding = flowCookie.open(request.cookies()[cookies.flowCookieName]) ?? signIn.newBrowserBinding()
        let start: SignInStart
        do throws(SignInError) {
            start = try await signIn.begin(
                provider: name, returnTo: returnTo, intent: intent, browserBinding: binding)
        } catch {
            throw ServerError(error)
        }
        if options.keepsTraces { traces.rememberStart(state: start.state, trace: start.trace) }
        logger.log(.debug, "sign-in started", metadata: ["provider": name, "intent": intent.rawValue])
        var response = HTTPServerResponse.redirect(to: start.redirectURL, status: 302)
        response.addCookie(cookies.flowCookie(flowCookie.seal(binding)))
        return response
    }

    static let signupDisabled = ServerError(
        .signupDisabled, "expected an identity that already has a user, found a new one (server.signup is false)",
        status: 403)
}
