import AuthFlowJOSE
package import Foundation

/// A verified Facebook `signed_request` (the Data Deletion Request and Deauthorize callbacks).
///
/// The form field is `base64url(signature) "." base64url(payload)` (padded or not); the signature is
/// HMAC-SHA256 over the payload text *as received* with the app secret, compared in constant time; the payload
/// is JSON `{"algorithm": "HMAC-SHA256", "issued_at": …, "user_id": "…"}`. Another algorithm, an `issued_at`
/// older than ``maximumAge`` (or in the future beyond the leeway), a missing `user_id` and a login payload (one
/// carrying `code` or `oauth_token`, as the JavaScript SDK's cookie does) are refused.
package struct FacebookSignedRequest: Sendable, Hashable {
    /// How old a signed request may be, in seconds: Facebook calls back at once, so a short bound leaves a
    /// captured request little time to be replayed.
    package static let maximumAge: Double = 600
    /// The largest `signed_request` read, in bytes.
    package static let maximumBytes = 8 * 1024

    /// The app-scoped Facebook user id.
    package let userID: String
    /// When Facebook issued the request.
    package let issuedAt: Date
    /// The decoded HMAC (unique per request; the basis of idempotency keys and confirmation codes).
    package let signature: [UInt8]

    /// Verifies `signedRequest` with `appSecret` at `now`.
    ///
    /// - Throws: ``FacebookSignedRequest/Failure`` naming what was expected and found.
    package init(_ signedRequest: String, appSecret: String, now: Date, leeway: Double = 60) throws(Failure) {
        guard signedRequest.utf8.count <= Self.maximumBytes else {
            throw Failure(
                .malformed, "expected a signed_request of at most \(Self.maximumBytes) bytes, found a longer one")
        }
        let parts = signedRequest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw Failure(
                .malformed,
                "expected a signed_request of two base64url parts 'signature.payload', found \(parts.count) part(s)")
        }
        let payloadText = parts[1]
        guard let signature = Self.decode(parts[0]), let payloadBytes = Self.decode(payloadText) else {
            throw Failure(
                .malformed, "expected base64url (padded or unpadded) signature and payload, found other characters")
        }
        let expected = Digest.hmacSHA256(key: Array(appSecret.utf8), message: Array(payloadText.utf8))
        guard ConstantTime.equals(signature, expected) else {
            throw Failure(
                .signature, "expected an HMAC-SHA256 signature made with the app secret, found one that does not match")
        }
        guard let payload = try? JSONValue.parse(payloadBytes), payload.objectValue != nil else {
            throw Failure(.malformed, "expected the payload to be a JSON object, found something else")
        }
        guard let algorithm = payload["algorithm"]?.stringValue, algorithm.uppercased() == "HMAC-SHA256" else {
            throw Failure(.algorithm, "expected algorithm HMAC-SHA256, found another or none")
        }
        // A login's signed_request (the SDK's `fbsr_` cookie) is readable by the page; it is never a callback.
        if let field = ["code", "oauth_token"].first(where: { payload[$0] != nil }) {
            throw Failure(
                .loginPayload, "expected a data deletion or deauthorize payload, found a login payload (with \(field))")
        }
        guard let issued = payload["issued_at"]?.int64Value else {
            throw Failure(.issuedAt, "expected a numeric issued_at, found none")
        }
        let issuedAt = Date(timeIntervalSince1970: Double(issued))
        let age = now.timeIntervalSince(issuedAt)
        guard age <= Self.maximumAge else {
            throw Failure(
                .issuedAt,
                "expected issued_at within the last \(Int(Self.maximumAge)) s, found one \(Int(age.rounded(.down))) s old"
            )
        }
        guard -age <= leeway else {
            throw Failure(.issuedAt, "expected issued_at in the past, found a time in the future")
        }
        guard let user = payload["user_id"]?.stringValue, !user.isEmpty, user.utf8.count <= 255 else {
            throw Failure(.userID, "expected a non-empty user_id, found none")
        }
        self.userID = user
        self.issuedAt = issuedAt
        self.signature = signature
    }

    /// Decodes base64url with or without `=` padding.
    static func decode(_ text: Substring) -> [UInt8]? {
        var unpadded = text
        var padding = 0
        while unpadded.hasSuffix("="), padding < 2 {
            unpadded = unpadded.dropLast()
            padding += 1
        }
        if padding > 0, text.utf8.count % 4 != 0 { return nil }
        return try? Base64URL.decode(unpadded)
    }

    /// Why a signed request was refused; the message never echoes the request.
    package struct Failure: Error, Sendable, Hashable {
        /// The part of the request that was refused.
        package enum Reason: String, Sendable, Hashable {
            /// Not two base64url parts, too long, or a payload that is not a JSON object.
            case malformed
            /// The HMAC does not match the app secret.
            case signature
            /// An `algorithm` other than HMAC-SHA256.
            case algorithm
            /// `issued_at` missing, older than ``FacebookSignedRequest/maximumAge`` or in the future.
            case issuedAt = "issued_at"
            /// No `user_id`.
            case userID = "user_id"
            /// A login payload (with `code` or `oauth_token`), not a callback's.
            case loginPayload = "login_payload"
        }

        /// The part that was refused.
        package let reason: Reason
        /// What was expected and what was found.
        package let message: String

        init(_ reason: Reason, _ message: String) {
            self.reason = reason
            self.message = message
        }
    }
}
