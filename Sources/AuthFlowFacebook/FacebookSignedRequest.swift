import AuthFlowJOSE
public import Foundation

/// A verified Facebook `signed_request` (the Data Deletion Request and Deauthorize callbacks).
///
/// The form field is `base64url(signature) "." base64url(payload)` (padded or not); the signature is
/// HMAC-SHA256 over the payload text *as received* with the app secret, compared in constant time; the payload
/// is JSON `{"algorithm": "HMAC-SHA256", "issued_at": …, "user_id": "…"}`. Another algorithm, an `issued_at`
/// older than a day (or in the future beyond the leeway) and a missing `user_id` are refused.
public struct FacebookSignedRequest: Sendable, Hashable {
    /// How old a signed request may be, in seconds.
    public static let maximumAge: Double = 86_400
    /// The largest `signed_request` read, in bytes.
    public static let maximumBytes = 8 * 1024

    /// The app-scoped Facebook user id.
    public let userID: String
    /// When Facebook issued the request.
    public let issuedAt: Date
    /// The decoded HMAC (unique per request; the basis of idempotency keys and confirmation codes).
    public let signature: [UInt8]

    /// Verifies `signedRequest` with `appSecret` at `now`.
    ///
    /// - Throws: ``FacebookSignedRequest/Failure`` naming what was expected and found.
    public init(_ signedRequest: String, appSecret: String, now: Date, leeway: Double = 60) throws(Failure) {
        guard signedRequest.utf8.count <= Self.maximumBytes else {
            throw Failure("expected a signed_request of at most \(Self.maximumBytes) bytes, found a longer one")
        }
        let parts = signedRequest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw Failure(
                "expected a signed_request of two base64url parts 'signature.payload', found \(parts.count) part(s)")
        }
        let payloadText = parts[1]
        guard let signature = Self.decode(parts[0]), let payloadBytes = Self.decode(payloadText) else {
            throw Failure("expected base64url (padded or unpadded) signature and payload, found other characters")
        }
        let expected = Digest.hmacSHA256(key: Array(appSecret.utf8), message: Array(payloadText.utf8))
        guard ConstantTime.equals(signature, expected) else {
            throw Failure("expected an HMAC-SHA256 signature made with the app secret, found one that does not match")
        }
        guard let payload = try? JSONValue.parse(payloadBytes), payload.objectValue != nil else {
            throw Failure("expected the payload to be a JSON object, found something else")
        }
        guard let algorithm = payload["algorithm"]?.stringValue, algorithm.uppercased() == "HMAC-SHA256" else {
            throw Failure("expected algorithm HMAC-SHA256, found another or none")
        }
        guard let issued = payload["issued_at"]?.int64Value else {
            throw Failure("expected a numeric issued_at, found none")
        }
        let issuedAt = Date(timeIntervalSince1970: Double(issued))
        guard now.timeIntervalSince(issuedAt) <= Self.maximumAge else {
            throw Failure("expected issued_at within the last day, found an older request")
        }
        guard issuedAt.timeIntervalSince(now) <= leeway else {
            throw Failure("expected issued_at in the past, found a time in the future")
        }
        guard let user = payload["user_id"]?.stringValue, !user.isEmpty, user.utf8.count <= 255 else {
            throw Failure("expected a non-empty user_id, found none")
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
    public struct Failure: Error, Sendable, Hashable {
        /// What was expected and what was found.
        public let message: String

        init(_ message: String) { self.message = message }
    }
}
