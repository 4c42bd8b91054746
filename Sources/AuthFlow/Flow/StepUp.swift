package import AuthFlowJOSE
package import Foundation

/// What a sign-in asks of the provider's authentication (OpenID Connect Core §3.1.2.1): a maximum age
/// (`max_age`, seconds) and acceptable authentication context classes (`acr_values`, in order of preference).
///
/// It is sent in the authorization request, sealed in the flow record, and checked against the id_token at the
/// callback (``check(_:now:leeway:)``).
package struct StepUp: Sendable, Hashable {
    /// The most seconds since the user authenticated; `nil` when not asked.
    package let maxAge: Int64?
    /// The acceptable `acr` values; empty when not asked.
    package let acrValues: [String]

    /// The most `acr_values` one request names.
    package static let maximumACRValues = 8
    /// The longest `acr` value, in UTF-8 bytes.
    package static let maximumACRBytes = 255
    /// The largest `max_age` accepted: a year.
    package static let maximumMaxAge: Int64 = 366 * 86_400

    /// A step-up of already validated values; `nil` when neither is asked.
    package init?(maxAge: Int64?, acrValues: [String]) {
        guard maxAge != nil || !acrValues.isEmpty else { return nil }
        self.maxAge = maxAge
        self.acrValues = acrValues
    }

    /// Reads the `max_age` and `acr_values` request parameters; `nil` when neither is present.
    ///
    /// - Throws: `SignInError` `invalid_step_up` (400) for a `max_age` that is not a non-negative integer of at
    ///   most a year, or `acr_values` that are not 1 to 8 space-separated values of printable ASCII, each at most
    ///   255 bytes.
    package static func parse(maxAge: String?, acrValues: String?) throws(SignInError) -> StepUp? {
        var age: Int64?
        if let maxAge {
            guard !maxAge.isEmpty, maxAge.utf8.count <= 10, maxAge.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let value = Int64(maxAge), value <= maximumMaxAge
            else {
                throw SignInError(
                    .invalidStepUp,
                    "expected max_age to be a non-negative integer of at most \(maximumMaxAge) seconds, "
                        + "found '\(maxAge.prefix(16))'")
            }
            age = value
        }
        var values: [String] = []
        if let acrValues {
            values = acrValues.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard !values.isEmpty, values.count <= maximumACRValues else {
                throw SignInError(
                    .invalidStepUp,
                    "expected acr_values to list 1 to \(maximumACRValues) space-separated values, found \(values.count)"
                )
            }
            for value in values
            where value.utf8.count > maximumACRBytes || !value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
                throw SignInError(
                    .invalidStepUp,
                    "expected each acr_values value to be 1 to \(maximumACRBytes) bytes of printable ASCII, "
                        + "found one of \(value.utf8.count) bytes that is not")
            }
        }
        return StepUp(maxAge: age, acrValues: values)
    }

    /// The authorization request parameters: `max_age` and `acr_values`, those asked.
    package var parameters: [(String, String)] {
        var parameters: [(String, String)] = []
        if let maxAge { parameters.append(("max_age", String(maxAge))) }
        if !acrValues.isEmpty { parameters.append(("acr_values", acrValues.joined(separator: " "))) }
        return parameters
    }

    /// Checks a verified id_token against what was asked: with `max_age`, `auth_time` is present (Core §2: required
    /// then) and `now - auth_time <= max_age + leeway`; with `acr_values`, `acr` is one of them.
    ///
    /// - Throws: `SignInError` `auth_time_missing`, `auth_time_too_old` or `acr_not_satisfied` (401), each with the
    ///   `claim`.
    package func check(_ claims: JWTClaims, now: Date, leeway: Double) throws(SignInError) {
        if let maxAge {
            guard let authTime = claims["auth_time"]?.int64Value else {
                var error = SignInError(
                    .authTimeMissing, "expected an 'auth_time' claim in the id_token (max_age was asked), found none")
                error.claim = "auth_time"
                throw error
            }
            let age = now.timeIntervalSince1970 - Double(authTime)
            guard age <= Double(maxAge) + leeway else {
                var error = SignInError(
                    .authTimeTooOld,
                    "expected an authentication at most \(maxAge)s old (max_age, with \(Int(leeway))s leeway), "
                        + "found one \(Int(age))s old")
                error.claim = "auth_time"
                throw error
            }
        }
        if !acrValues.isEmpty {
            let acr = claims["acr"]?.stringValue
            guard let acr, acrValues.contains(acr) else {
                var error = SignInError(
                    .acrNotSatisfied,
                    "expected an 'acr' claim of \(acrValues.joined(separator: " or ")), found "
                        + (acr.map { "'\($0.prefix(64))'" } ?? "none"))
                error.claim = "acr"
                throw error
            }
        }
    }
}

extension ErrorCode where Domain == SignInError {
    /// `max_age` or `acr_values` of a sign-in start is malformed, or asked of a provider without OpenID
    /// Connect (no id_token to verify them in).
    package static var invalidStepUp: Self { Self(rawValue: "invalid_step_up") }
    /// The sign-in asked for `max_age` and the id_token has no `auth_time`.
    package static var authTimeMissing: Self { Self(rawValue: "auth_time_missing") }
    /// The sign-in asked for `max_age` and the id_token's `auth_time` is older (beyond the clock-skew leeway).
    package static var authTimeTooOld: Self { Self(rawValue: "auth_time_too_old") }
    /// The sign-in asked for `acr_values` and the id_token's `acr` is missing or none of them.
    package static var acrNotSatisfied: Self { Self(rawValue: "acr_not_satisfied") }
}
