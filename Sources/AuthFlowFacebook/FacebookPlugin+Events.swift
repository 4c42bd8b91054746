import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Facebook's Data Deletion Request and Deauthorize callbacks, through the plugin events seam.
struct FacebookEvents: ProviderEventHandling {
    /// `POST /auth/{name}/data-deletion`, `GET /auth/{name}/data-deletion/{code}` (the status page) and
    /// `POST /auth/{name}/deauthorize`.
    func eventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint] {
        [
            ProviderEventEndpoint(path: "data-deletion", method: "POST", maximumBodyBytes: 16 * 1024),
            ProviderEventEndpoint(path: "data-deletion/*", method: "GET", maximumBodyBytes: 0),
            ProviderEventEndpoint(path: "deauthorize", method: "POST", maximumBodyBytes: 16 * 1024),
        ]
    }

    /// Verifies a callback's `signed_request` (see `FacebookSignedRequest`) and names its effects.
    ///
    /// A `signed_request` is applied once, whichever endpoint receives it first (the key is a digest of its
    /// signature); a replay to either endpoint changes nothing.
    ///
    /// - Data deletion removes the user's Facebook identity with its tokens and ends the sessions signed in
    ///   with it (a later Facebook sign-in makes a new user unless another identity links it), and answers
    ///   `{"url": <status page>, "confirmation_code": <code>}`; the code is derived from the request's
    ///   signature, so a retried request gets the same one and changes nothing more.
    /// - Deauthorize deletes the identity's stored tokens and ends its sessions; answers 200 `{"applied"}`.
    /// - The status page answers 200 (HTML, or JSON when asked) for a code this site applied, 404 otherwise.
    ///
    /// - Throws: `ProviderEventError` `invalid_signed_request` (400), `not_found` (404),
    ///   `store_unavailable` (503).
    func handleEvent(_ request: ProviderEventRequest, context: ProviderEventContext)
        async throws(ProviderEventError) -> ProviderEventOutcome
    {
        if request.endpoint.method == "GET" {
            return try await deletionStatus(request, context: context)
        }
        let signed = try Self.signedRequest(request, context: context)
        let key = IdentityKey(provider: context.provider.name, subject: signed.userID)
        let known = try await context.identity(key) != nil
        let code = Hex.encode(Digest.sha256(signed.signature).prefix(16))
        if request.endpoint.path == ["deauthorize"] {
            let actions: [ProviderEventAction] = known ? [.account(.deleteTokens(key)), .endSessions(key)] : []
            return ProviderEventOutcome(
                idempotencyKey: Self.signedRequestKey(code), actions: actions, summary: "deauthorize"
            ) { disposition in
                var response = HTTPServerResponse.json(
                    JSONValue.object(["applied": .bool(disposition == .applied)]).serialized())
                response.headers["Cache-Control"] = "no-store"
                return response
            }
        }
        let actions: [ProviderEventAction] = known ? [.account(.removeIdentity(key)), .endSessions(key)] : []
        let url = context.routeURL("data-deletion/\(code)")
        return ProviderEventOutcome(
            idempotencyKey: Self.signedRequestKey(code), actions: actions, summary: "data-deletion"
        ) { _ in
            var response = HTTPServerResponse.json(
                JSONValue.object(["url": .string(url), "confirmation_code": .string(code)]).serialized())
            response.headers["Cache-Control"] = "no-store"
            return response
        }
    }

    /// The idempotency key a signed request is applied under, the same at both endpoints: a deauthorize request
    /// replayed to data deletion (or the reverse) is already applied and changes nothing.
    static func signedRequestKey(_ code: String) -> String { "signed-request:\(code)" }

    /// The key data deletions were recorded under before both endpoints shared one; the status page still reads it.
    static func legacyDeletionKey(_ code: String) -> String { "data-deletion:\(code)" }

    /// `GET /auth/{name}/data-deletion/{code}`: what was deleted for a confirmation code.
    func deletionStatus(_ request: ProviderEventRequest, context: ProviderEventContext)
        async throws(ProviderEventError) -> ProviderEventOutcome
    {
        let code = request.pathParameters.first ?? ""
        let unknown = ProviderEventError(
            code: "not_found", "expected a confirmation code of a data deletion request, found an unknown one",
            status: 404)
        guard code.utf8.count == 32, code.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { throw unknown }
        var applied = false
        do throws(StoreError) {
            for key in [Self.signedRequestKey(code), Self.legacyDeletionKey(code)] where !applied {
                applied = try await context.accounts.isNotificationApplied(id: "\(context.provider.name):\(key)")
            }
        } catch {
            throw .storeUnavailable(error)
        }
        guard applied else { throw unknown }
        let deleted = [
            "the link between your Facebook account and your account here",
            "the Facebook access tokens stored for it", "the sessions you signed in to with Facebook",
        ]
        let wantsJSON = request.http.headers["Accept"]?.contains("application/json") ?? false
        var response: HTTPServerResponse
        if wantsJSON {
            response = .json(
                JSONValue.object([
                    "confirmation_code": .string(code), "status": .string("completed"),
                    "deleted": .array(["facebook_identity", "facebook_tokens", "sessions"].map(JSONValue.string)),
                ]).serialized())
        } else {
            response = .html(
                """
                <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Data deletion \(code)</title></head>
                <body><h1>Data deletion request \(code)</h1><p>Status: completed. We deleted:</p><ul>
                \(deleted.map { "<li>\($0)</li>" }.joined())</ul>
                <p>Signing in with Facebook again starts afresh.</p></body></html>
                """)
        }
        response.headers["Cache-Control"] = "no-store"
        return .respond(response, summary: "data-deletion status")
    }

    /// The verified `signed_request` form field.
    ///
    /// - Throws: ``ProviderEventError`` `invalid_signed_request` (400).
    static func signedRequest(_ request: ProviderEventRequest, context: ProviderEventContext)
        throws(ProviderEventError) -> FacebookSignedRequest
    {
        guard let fields = request.formFields, let text = fields["signed_request"], !text.isEmpty else {
            throw ProviderEventError(
                code: "invalid_signed_request",
                "expected a form body (application/x-www-form-urlencoded) with one signed_request, found none")
        }
        guard let secret = context.provider.settings.clientSecret?.value, !secret.isEmpty else {
            throw ProviderEventError(
                code: "invalid_signed_request", "expected a client_secret to verify the signed_request, found none")
        }
        do throws(FacebookSignedRequest.Failure) {
            return try FacebookSignedRequest(text, appSecret: secret, now: context.now, leeway: context.leeway)
        } catch {
            throw ProviderEventError(code: "invalid_signed_request", error.message)
        }
    }
}
