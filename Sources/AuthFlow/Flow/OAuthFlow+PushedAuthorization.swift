package import AuthFlowHTTP
import AuthFlowJOSE
package import Foundation

extension OAuthFlow {
    /// What to do after ``OAuthFlow/begin(returnTo:intent:browserBinding:secrets:now:)``.
    package enum StartAction: Sendable {
        /// Seal the record into the flow cookie and send the browser to the URL.
        case redirect(AuthorizationRedirect)
        /// Send this pushed authorization request (RFC 9126 §2.1), then call
        /// ``OAuthFlow/pushedAuthorizationResponseReceived(_:now:)`` with the answer.
        case pushAuthorizationRequest(HTTPClientRequest)
    }

    /// The longest `request_uri` accepted from a pushed authorization request endpoint, in bytes.
    package static let maximumRequestURIBytes = 2048

    /// The pushed authorization request carrying every authorization parameter (the ones a proof of
    /// possession or a request object adds join `parameters` before this), authenticated like the token
    /// request.
    mutating func push(
        _ parameters: [(String, String)], to url: String, _ pushing: Pushing, now: Date
    ) throws(SignInError) -> StartAction {
        let request: HTTPClientRequest
        do throws(SignInError) {
            request = try provider.pushedAuthorizationRequest(
                url: url, parameters: parameters, now: now, clientSecretLifetime: options.clientSecretLifetime)
        } catch {
            throw failure(.authorizationRedirect, error, now: now, checks: pushing.checks)
        }
        state = .pushing(pushing)
        return .pushAuthorizationRequest(request)
    }

    /// The pushed authorization request endpoint answered (RFC 9126 §2.2, §2.3): a 2xx JSON object without
    /// `error`, with a non-empty `request_uri` (at most ``maximumRequestURIBytes``) and a positive integer
    /// `expires_in` that has not run out since the request was sent, becomes the redirect carrying only
    /// `client_id` and `request_uri`. Anything else is `pushed_authorization_error` with the provider's
    /// `error` code (``SignInError/providerError``), a printable excerpt of its `error_description` and the
    /// HTTP status (``SignInError/upstreamStatus``).
    ///
    /// - Throws: ``SignInError`` with `pushed_authorization_error`.
    /// - Precondition: the flow asked for the push (``StartAction/pushAuthorizationRequest(_:)``).
    package mutating func pushedAuthorizationResponseReceived(_ response: HTTPClientResponse, now: Date)
        throws(SignInError) -> AuthorizationRedirect
    {
        guard case .pushing(let pushing) = state else { unexpected("pushed authorization response") }
        let detail = "HTTP \(response.status)"
        let requestURI: String
        do throws(SignInError) {
            requestURI = try Self.requestURI(from: response, sentAt: pushing.sentAt, now: now)
        } catch {
            var error = error
            error.upstreamStatus = response.status
            throw failure(
                .authorizationRedirect, error, now: now, checks: pushing.checks, roundTrip: true, detail: detail)
        }
        appendTrace(
            .authorizationRedirect, now: now, checks: pushing.checks + ["par"], roundTrip: true, outcome: .succeeded,
            detail: detail)
        state = .redirected
        let url = QueryString.appending(
            [("client_id", provider.clientID), ("request_uri", requestURI)], to: pushing.authorizationEndpoint)
        return AuthorizationRedirect(url: url, record: pushing.record, ttl: options.flowTTL)
    }

    /// The `request_uri` of a pushed authorization request's answer; see
    /// ``pushedAuthorizationResponseReceived(_:now:)``.
    static func requestURI(from response: HTTPClientResponse, sentAt: Date, now: Date) throws(SignInError) -> String {
        let json = try? JSONValue.parse(response.body)
        let code = ProviderErrorCode.sanitize(errorCode(in: json))
        guard (200..<300).contains(response.status), code == nil else {
            let description = Self.printableExcerpt(json?["error_description"]?.stringValue)
            throw SignInError(
                .pushedAuthorizationError,
                "expected the pushed authorization request endpoint to accept the request, found HTTP "
                    + "\(response.status) with error '\(code ?? "none")'"
                    + (description.map { " (\($0))" } ?? ""),
                providerError: code)
        }
        guard let object = json?.objectValue else {
            throw invalidPushAnswer("a JSON object", found: "a body that is not one")
        }
        guard let requestURI = object["request_uri"]?.stringValue, !requestURI.isEmpty,
            requestURI.utf8.count <= maximumRequestURIBytes
        else {
            throw invalidPushAnswer(
                "a non-empty request_uri of at most \(maximumRequestURIBytes) bytes",
                found: object["request_uri"] == nil ? "none" : "another value")
        }
        guard let lifetime = object["expires_in"]?.int64Value, lifetime > 0 else {
            throw invalidPushAnswer(
                "expires_in, a positive number of seconds (RFC 9126 §2.2)",
                found: object["expires_in"] == nil ? "none" : "another value")
        }
        let age = now.timeIntervalSince(sentAt)
        guard age < Double(lifetime) else {
            throw SignInError(
                .pushedAuthorizationError,
                "expected the request_uri to be usable for the redirect, found it expired: the endpoint gave it "
                    + "\(lifetime) s and its answer took \(Int(age)) s")
        }
        return requestURI
    }

    private static func invalidPushAnswer(_ expected: String, found: String) -> SignInError {
        SignInError(
            .pushedAuthorizationError,
            "expected \(expected) from the pushed authorization request endpoint, found \(found)")
    }

    /// At most 120 characters of a provider's `error_description`, kept only when every byte is in RFC 6749
    /// §5.2's set for it (printable ASCII without `"` and `\`).
    static func printableExcerpt(_ text: String?) -> String? {
        guard let text, !text.isEmpty,
            text.utf8.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E && $0 != 0x22 && $0 != 0x5C })
        else { return nil }
        return text.count > 120 ? String(text.prefix(120)) + "…" : text
    }
}

extension OAuthFlow {
    /// The authorization parameters as a signed request object (RFC 9101 §5): `client_id` and `request`, plus,
    /// in a redirect (not a push), `response_type` and `scope` again, which OpenID Connect Core §6.1 asks to
    /// find outside the object too.
    func signedRequestParameters(_ parameters: [(String, String)], pushed: Bool, now: Date) throws(SignInError)
        -> [(String, String)]
    {
        let object = try provider.requestObject(parameters, now: now)
        var result = [("client_id", provider.clientID)]
        if !pushed { result += parameters.filter { $0.0 == "response_type" || $0.0 == "scope" } }
        result.append(("request", object))
        return result
    }
}
