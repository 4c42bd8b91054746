import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// What the routes read from a request's query or form, and how they write times.
enum RequestParameters {
    /// The single `return_to` of the query or, for a form POST, the body (only that field is decoded; the
    /// body is bounded by the route's limit, ``SignInServer/formBodyLimit``).
    ///
    /// - Throws: ``ServerError`` `invalid_return_to` when it is given more than once.
    static func returnToParameter(_ request: HTTPServerRequest) throws(ServerError) -> String? {
        let values = formOrQueryValues(request, "return_to")
        guard values.count <= 1 else {
            throw ServerError(.invalidReturnTo, "expected at most one return_to, found \(values.count)", status: 400)
        }
        return values.first
    }

    /// A yes-or-no parameter of `POST /auth/logout` (`everywhere`, `provider_logout`) in the query or form:
    /// `1`/`true` is yes, `0`/`false` or absent no.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for another value or more than one.
    static func flagParameter(_ request: HTTPServerRequest, _ name: String) throws(ServerError) -> Bool {
        let values = formOrQueryValues(request, name)
        guard values.count <= 1 else {
            throw ServerError(.invalidRequest, "expected at most one \(name), found \(values.count)", status: 400)
        }
        switch values.first {
        case nil, "0", "false": return false
        case "1", "true": return true
        case let value?:
            throw ServerError(
                .invalidRequest,
                "expected \(name)=1 or \(name)=0, found " + JSONValue.string(String(value.prefix(16))).serialized(),
                status: 400)
        }
    }

    /// The step-up a sign-in start asks for: its single `max_age` and `acr_values` (query), `nil` for neither.
    ///
    /// - Throws: ``ServerError`` `invalid_step_up` (400) for a repeated or malformed value.
    static func stepUpParameters(_ request: HTTPServerRequest) throws(ServerError) -> StepUp? {
        var values: [String: String] = [:]
        for name in ["max_age", "acr_values"] {
            let given = request.query.filter { $0.0 == name }.map(\.1)
            guard given.count <= 1 else {
                throw ServerError(
                    .init(rawValue: "invalid_step_up"), "expected at most one \(name), found \(given.count)",
                    status: 400)
            }
            values[name] = given.first
        }
        do throws(SignInError) {
            return try StepUp.parse(maxAge: values["max_age"], acrValues: values["acr_values"])
        } catch {
            throw ServerError(error)
        }
    }

    /// The values of `name` in the query and, for a POST, the form body.
    private static func formOrQueryValues(_ request: HTTPServerRequest, _ name: String) -> [String] {
        var values = request.query.filter { $0.0 == name }.map(\.1)
        if request.method == "POST", let fields = try? request.formValues(name) { values += fields }
        return values
    }

    /// RFC 3339 UTC with seconds, e.g. `2025-01-31T08:00:00Z`.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
