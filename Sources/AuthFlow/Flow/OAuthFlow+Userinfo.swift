package import AuthFlowHTTP
import AuthFlowJOSE
package import Foundation

extension OAuthFlow {
    /// The userinfo endpoint (or the next of the plugin's profile resources) answered.
    ///
    /// A non-2xx status, a body that is not JSON, or a missing subject is `userinfo_error`; when an id_token
    /// was verified too, the userinfo subject must equal its `sub` (`userinfo_subject_mismatch`), and the
    /// id_token's values take precedence.
    ///
    /// - Returns: ``IdentityAction/fetchUserinfo(_:)`` (the plugin's next profile resource),
    ///   ``IdentityAction/complete(_:)`` or ``IdentityAction/fail(_:)``.
    /// - Precondition: the flow asked for userinfo (``TokenResponseAction/fetchUserinfo(_:)`` or
    ///   ``IdentityAction/fetchUserinfo(_:)``).
    package mutating func userinfoResponseReceived(_ response: HTTPClientResponse, now: Date) -> IdentityAction {
        guard case .awaitingUserinfo(let exchange, let tokens, let idTokenClaims, var pending, var received) = state
        else { unexpected("userinfo response") }
        let detail = "HTTP \(response.status)"
        guard (200..<300).contains(response.status) else {
            return fail(
                .userinfo,
                SignInError(
                    .userinfoError, "expected a profile from the userinfo endpoint, found HTTP \(response.status)",
                    providerError: ProviderErrorCode.sanitize(Self.errorCode(in: try? JSONValue.parse(response.body))),
                    upstreamStatus: response.status),
                now: now, roundTrip: true, detail: detail)
        }
        guard let json = try? JSONValue.parse(response.body) else {
            return fail(
                .userinfo,
                SignInError(
                    .userinfoError, "expected JSON from the userinfo endpoint, found a body that is not JSON",
                    upstreamStatus: response.status),
                now: now, roundTrip: true, detail: detail)
        }
        received.append(json)
        // A plugin with several profile resources (GitHub's /user and /user/emails) gets them one by one.
        if !pending.isEmpty {
            let next = pending.removeFirst()
            appendTrace(.userinfo, now: now, checks: ["status"], roundTrip: true, outcome: .succeeded, detail: detail)
            state = .awaitingUserinfo(
                exchange, tokens, idTokenClaims: idTokenClaims, pending: pending, received: received)
            return .fetchUserinfo(next)
        }
        let identity: VerifiedIdentity
        var checks = ["status", "subject"]
        do throws(SignInError) {
            identity = try userinfoIdentity(
                received, idTokenClaims: idTokenClaims, status: response.status, checks: &checks)
        } catch {
            return fail(.userinfo, error, now: now, checks: checks, roundTrip: true, detail: detail)
        }
        appendTrace(.userinfo, now: now, checks: checks, roundTrip: true, outcome: .succeeded, detail: detail)
        return complete(exchange, tokens, identity, now: now)
    }

    /// The identity of the profile responses, merged under the id_token's when one was verified (its `sub` must
    /// be the userinfo subject). A mapping failure carries the last response's `status` and clears `checks`.
    private func userinfoIdentity(
        _ received: [JSONValue], idTokenClaims: JWTClaims?, status: Int, checks: inout [String]
    ) throws(SignInError) -> VerifiedIdentity {
        let identity: VerifiedIdentity
        do throws(SignInError) {
            identity = try provider.plugin.identity(fromUserinfoResponses: received, provider: provider)
        } catch {
            checks = []
            var error = error
            if error.code != .userinfoError {
                error = SignInError(
                    error.code == .idTokenInvalid ? .userinfoError : error.code, error.message,
                    provider: error.provider, claim: error.claim)
            }
            error.upstreamStatus = status
            throw error
        }
        guard let idTokenClaims else { return identity }
        guard idTokenClaims.subject == identity.subject else {
            throw SignInError(
                .userinfoSubjectMismatch,
                "expected the userinfo subject to equal the id_token's sub, found a different subject")
        }
        checks.append("subject_matches_id_token")
        let fromToken = try provider.plugin.identity.identity(fromIDToken: idTokenClaims, provider: provider)
        return Self.merge(primary: fromToken, secondary: identity)
    }

    /// The id_token identity with the userinfo's email (and its flags), name, groups, roles and tenant filling gaps.
    static func merge(primary: VerifiedIdentity, secondary: VerifiedIdentity) -> VerifiedIdentity {
        let useSecondaryEmail = primary.email == nil && secondary.email != nil
        return VerifiedIdentity(
            provider: primary.provider, subject: primary.subject,
            email: useSecondaryEmail ? secondary.email : primary.email,
            emailVerified: useSecondaryEmail ? secondary.emailVerified : primary.emailVerified,
            name: primary.name ?? secondary.name, source: .idToken,
            rawClaims: secondary.rawClaims.merging(primary.rawClaims) { _, token in token },
            groups: primary.groups.isEmpty ? secondary.groups : primary.groups,
            roles: primary.roles.isEmpty ? secondary.roles : primary.roles, tenant: primary.tenant ?? secondary.tenant,
            isPrivateRelayEmail: useSecondaryEmail ? secondary.isPrivateRelayEmail : primary.isPrivateRelayEmail,
            emailLinkable: useSecondaryEmail ? secondary.emailLinkable : primary.emailLinkable)
    }
}
