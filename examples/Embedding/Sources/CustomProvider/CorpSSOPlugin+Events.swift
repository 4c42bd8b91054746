import AuthFlowDeployment
import Foundation

/// Corp SSO's server-to-server events: `POST /auth/{name}/events` with a JSON body
/// `{"id": "evt-1", "employee_id": "e-1234", "event": "suspended" | "reinstated" | "left"}` and an
/// `X-Corp-Signature` header, the hex HMAC-SHA256 of the body keyed with the client secret.
///
/// The plugin only verifies and interprets; the server applies the returned actions once per event id and
/// answers with what became of them.
extension CorpSSOPlugin {
    func eventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint] {
        [ProviderEventEndpoint(path: "events", method: "POST", maximumBodyBytes: 4 * 1024)]
    }

    func handleEvent(_ request: ProviderEventRequest, context: ProviderEventContext) async throws(ProviderEventError)
        -> ProviderEventOutcome
    {
        guard let secret = context.provider.settings.clientSecret?.value, !secret.isEmpty else {
            throw ProviderEventError(
                code: "events_unavailable", "expected a client_secret to check events", status: 503)
        }
        let expected = Digest.hmacSHA256(key: Array(secret.utf8), message: request.http.body)
            .map { String(format: "%02x", $0) }.joined()
        guard let given = request.http.headers["X-Corp-Signature"], ConstantTime.equals(given, expected) else {
            throw ProviderEventError(
                code: "invalid_signature", "expected an X-Corp-Signature matching the body, found another",
                status: 401)
        }
        guard let event = try? JSONValue.parse(request.http.body), let id = event["id"]?.stringValue, !id.isEmpty,
            let employee = event["employee_id"]?.stringValue, !employee.isEmpty,
            let kind = event["event"]?.stringValue
        else {
            throw ProviderEventError("expected a JSON object with id, employee_id and event, found another body")
        }
        let key = IdentityKey(provider: context.provider.name, subject: employee)
        let actions: [ProviderEventAction]
        switch kind {
        case "suspended": actions = [.account(.setDisabled(key, true)), .endSessions(key)]
        case "reinstated": actions = [.account(.setDisabled(key, false))]
        case "left": actions = [.revokeTokens(key), .account(.removeIdentity(key)), .endSessions(key)]
        default:
            throw ProviderEventError("expected event suspended, reinstated or left, found another value")
        }
        return ProviderEventOutcome(idempotencyKey: id, actions: actions, summary: "corp \(kind)") { disposition in
            .json(JSONValue.object(["result": .string(disposition.rawValue)]).serialized())
        }
    }
}
