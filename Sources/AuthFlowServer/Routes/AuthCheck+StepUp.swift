import AuthFlow
import AuthFlowHTTP
import Foundation

/// What `/auth/check?acr=…&max_age=…` (or `/auth/forward/acr=…&max_age=…`) asks of the session's authentication:
/// its `acr` one of ``acrValues`` and its `auth_time` at most ``maxAge`` seconds ago. A session that falls short
/// is answered 401 with the sign-in URL that asks the provider for exactly that (``AuthCheck/stepUpAnswer``).
struct StepUpRequirement: Sendable, Equatable {
    /// The acceptable `acr` values; empty when not asked.
    var acrValues: [String] = []
    /// The most seconds since the user authenticated; `nil` when not asked.
    var maxAge: Int64?

    /// Whether `record` satisfies it at `now`.
    func isSatisfied(by record: SessionRecord, now: Date) -> Bool {
        if let maxAge {
            guard let authTime = record.authTime, now.timeIntervalSince(authTime) <= Double(maxAge) else {
                return false
            }
        }
        if !acrValues.isEmpty {
            guard let acr = record.acr, acrValues.contains(acr) else { return false }
        }
        return true
    }

    /// The sign-in's `max_age` and `acr_values` that satisfy it.
    var loginParameters: [(String, String)] {
        (maxAge.map { [("max_age", String($0))] } ?? [])
            + (acrValues.isEmpty ? [] : [("acr_values", acrValues.joined(separator: " "))])
    }
}

extension AuthCheck {
    /// The step-up rule names a check's query or path may carry besides the access rules.
    static let stepUpNames: Set<String> = ["acr", "max_age"]

    /// Splits `pairs` into the access rules' pairs and the step-up requirement (`acr`: one value or a comma list,
    /// repeatable where the rules are; `max_age`: once, a non-negative integer of seconds); `nil` when neither is
    /// asked.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for an empty or malformed value, `max_age` twice, or
    ///   `acr` twice where rules may not repeat.
    static func stepUp(from pairs: [(String, String)], in place: String, repeatable: Bool) throws(ServerError) -> (
        rules: [(String, String)], stepUp: StepUpRequirement?
    ) {
        var requirement = StepUpRequirement()
        var seen: Set<String> = []
        var rest: [(String, String)] = []
        for (name, value) in pairs {
            guard stepUpNames.contains(name) else {
                rest.append((name, value))
                continue
            }
            guard seen.insert(name).inserted || (repeatable && name == "acr") else {
                throw ServerError(.invalidRequest, "expected \(name) once in \(place), found it twice", status: 400)
            }
            // `acr` is one value or a comma list: each item one acr value (no space, nothing empty).
            let items =
                name == "acr" ? value.split(separator: ",", omittingEmptySubsequences: false).map(String.init) : []
            guard items.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else {
                throw ServerError(
                    .invalidRequest, "expected acr to be a comma list of non-empty values in \(place)", status: 400)
            }
            let parsed: StepUp?
            do throws(SignInError) {
                parsed = try StepUp.parse(
                    maxAge: name == "max_age" ? value : nil,
                    acrValues: name == "acr" ? items.joined(separator: " ") : nil)
            } catch {
                throw ServerError(.invalidRequest, "\(error.message) in \(place)", status: 400)
            }
            if let maxAge = parsed?.maxAge { requirement.maxAge = maxAge }
            requirement.acrValues += parsed?.acrValues ?? []
        }
        guard requirement.maxAge != nil || !requirement.acrValues.isEmpty else { return (rest, nil) }
        guard requirement.acrValues.count <= StepUp.maximumACRValues else {
            throw ServerError(
                .invalidRequest, "expected at most \(StepUp.maximumACRValues) acr values in \(place)", status: 400)
        }
        return (rest, requirement)
    }

    /// The answer for a session that falls short of `requirement`: 401 `insufficient_user_authentication` (the
    /// error of RFC 9470, OAuth 2.0 Step-Up Authentication Challenge) with `login_url`, the sign-in with the
    /// session's provider that asks for it (`{prefix}/{provider}/login?max_age=…&acr_values=…&return_to=…`), in the
    /// JSON body, in `Location`, and in `WWW-Authenticate` with the `acr_values` and `max_age` RFC 9470 names.
    /// `browser` (a trusted forward-auth proxy describing a page request) gets 302 to it instead.
    func stepUpAnswer(
        _ session: CurrentSession, requirement: StepUpRequirement, returnTo: String?, browser: Bool
    ) -> HTTPServerResponse {
        var parameters = requirement.loginParameters
        if let returnTo { parameters.append(("return_to", returnTo)) }
        let login = loginBase + "/" + session.record.provider + "/login?" + FormURLEncoding.encode(parameters)
        if browser { return .redirect(to: login, status: 302) }
        var response = ResponseFactory.json(
            .object([
                "error": .string(ServerError.Code.insufficientUserAuthentication.rawValue),
                "message": .string(
                    "expected an authentication "
                        + [
                            requirement.acrValues.isEmpty
                                ? nil : "of class \(requirement.acrValues.joined(separator: " or "))",
                            requirement.maxAge.map { "at most \($0)s old" },
                        ].compactMap { $0 }.joined(separator: " and ")
                        + ", found the session's falls short; sign in again at login_url"),
                "login_url": .string(login),
            ]), status: 401)
        var challenge = "Bearer error=\"insufficient_user_authentication\""
        if !requirement.acrValues.isEmpty {
            challenge += ", acr_values=\"\(requirement.acrValues.joined(separator: " "))\""
        }
        if let maxAge = requirement.maxAge { challenge += ", max_age=\(maxAge)" }
        response.headers["WWW-Authenticate"] = challenge
        response.headers["Location"] = login
        return response
    }
}

extension ErrorCode where Domain == ServerError {
    /// 401 from `/auth/check` or `/auth/forward`: the session's authentication is older than `max_age` or not of
    /// an `acr` asked (RFC 9470's error); the answer carries `login_url`, the sign-in that satisfies it.
    package static var insufficientUserAuthentication: Self { Self(rawValue: "insufficient_user_authentication") }
}
