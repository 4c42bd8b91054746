import AuthFlow
import AuthFlowJOSE
import AuthFlowJSON
import Foundation

/// Seals and opens ``PasskeyCeremony`` values: AES-256-GCM under a key derived from `server.secret` with a label
/// of its own, so any instance opens what another issued and a ceremony opens as nothing else. Rotation is the
/// keyring's, as for native sign-in nonces: issued under the current secret, opened under any of them. Single
/// use is the spent-state set's, when a ceremony is finished.
struct PasskeyCeremonySeal: Sendable {
    /// How long a ceremony is accepted by default: 5 minutes.
    static let defaultLifetime: Double = 300
    /// The longest sealed ceremony opened (characters); anything longer is refused unread.
    static let maximumLength = 2048
    /// The HKDF info label of the ceremony key.
    static let label = "authflow passkey ceremony v1"

    private let cipher: TokenCipher
    /// How long an issued ceremony is accepted (seconds).
    let lifetime: Double

    /// Derives the sealing keys from `keyring`.
    ///
    /// - Throws: `JOSEError` `cryptoFailure` when OpenSSL fails.
    init(keyring: SecretKeyring, random: any SecureRandom, lifetime: Double = defaultLifetime) throws(JOSEError) {
        cipher = try keyring.cipher(label: Self.label, random: random)
        self.lifetime = lifetime
    }

    /// `ceremony` sealed, as the opaque `ceremony` member of an options answer.
    ///
    /// - Throws: ``ServerError`` `server_error` (500) when sealing fails.
    func seal(_ ceremony: PasskeyCeremony) throws(ServerError) -> String {
        var members: [String: JSONValue] = [
            "k": .string(ceremony.kind.rawValue), "p": .string(ceremony.provider),
            "c": .string(Base64URL.encode(ceremony.challenge)),
            "i": .integer(Int64(ceremony.issuedAt.timeIntervalSince1970)),
            "e": .integer(Int64(ceremony.expiresAt.timeIntervalSince1970)),
        ]
        if let user = ceremony.user {
            members["h"] = .string(Base64URL.encode(user.handle))
            members["n"] = .string(user.name)
            members["d"] = .string(user.displayName)
            if let userID = user.userID { members["u"] = .string(userID.rawValue) }
        }
        do throws(JOSEError) {
            return Base64URL.encode(try cipher.seal(JSONValue.object(members).serializedBytes(), associatedData: []))
        } catch {
            throw ServerError(.serverError, "expected to seal the passkey ceremony, found \(error.code)", status: 500)
        }
    }

    /// A fresh ceremony of `kind` for `provider`, issued at `now` with a challenge from `random`.
    static func ceremony(
        _ kind: PasskeyCeremony.Kind, provider: String, user: PasskeyCeremony.User?, now: Date, lifetime: Double,
        random: any SecureRandom
    ) -> PasskeyCeremony {
        let issued = now.timeIntervalSince1970.rounded(.down)
        return PasskeyCeremony(
            kind: kind, provider: provider, challenge: random.bytes(32),
            issuedAt: Date(timeIntervalSince1970: issued),
            expiresAt: Date(timeIntervalSince1970: issued + lifetime.rounded(.up)), user: user)
    }

    /// Opens `sealed` as a ceremony of `kind` for `provider` at `now`.
    ///
    /// - Throws: ``ServerError`` (400) `ceremony_invalid` (not sealed by a secret of the keyring, malformed),
    ///   `ceremony_provider_mismatch`, `ceremony_kind_mismatch`, `ceremony_expired`.
    func open(_ sealed: String, kind: PasskeyCeremony.Kind, provider: String, now: Date) throws(ServerError)
        -> PasskeyCeremony
    {
        let invalid = ServerError(
            .ceremonyInvalid,
            "expected the ceremony of POST \(provider)/\(kind.optionsRoute), found another value", status: 400,
            provider: provider)
        guard sealed.utf8.count <= Self.maximumLength, let bytes = try? Base64URL.decode(sealed),
            let plain = try? cipher.open(bytes, associatedData: []), let json = try? JSONValue.parse(plain),
            let ceremony = Self.ceremony(from: json)
        else { throw invalid }
        guard ceremony.provider == provider else {
            throw ServerError(
                .ceremonyProviderMismatch, "expected a ceremony for provider '\(provider)', found one for another",
                status: 400, provider: provider)
        }
        guard ceremony.kind == kind else {
            throw ServerError(
                .ceremonyKindMismatch, "expected a \(kind.rawValue) ceremony, found a \(ceremony.kind.rawValue) one",
                status: 400, provider: provider)
        }
        guard now < ceremony.expiresAt else {
            throw ServerError(
                .ceremonyExpired,
                "expected a ceremony issued less than \(Int(lifetime)) s ago, found one that expired at "
                    + "\(Int64(ceremony.expiresAt.timeIntervalSince1970))", status: 400, provider: provider)
        }
        return ceremony
    }

    /// The ceremony `json` holds, or `nil` when a member is missing or of another type.
    private static func ceremony(from json: JSONValue) -> PasskeyCeremony? {
        guard let kind = json["k"]?.stringValue.flatMap(PasskeyCeremony.Kind.init(rawValue:)),
            let provider = json["p"]?.stringValue, let challenge = json["c"]?.stringValue,
            let challengeBytes = try? Base64URL.decode(challenge), case .integer(let issued)? = json["i"],
            case .integer(let expires)? = json["e"]
        else { return nil }
        var user: PasskeyCeremony.User?
        if kind == .registration {
            guard let handle = json["h"]?.stringValue, let handleBytes = try? Base64URL.decode(handle),
                let name = json["n"]?.stringValue, let displayName = json["d"]?.stringValue
            else { return nil }
            let userID = json["u"]?.stringValue.map(UserID.init(rawValue:))
            if json["u"] != nil, userID == nil { return nil }
            user = PasskeyCeremony.User(handle: handleBytes, name: name, displayName: displayName, userID: userID)
        }
        return PasskeyCeremony(
            kind: kind, provider: provider, challenge: challengeBytes,
            issuedAt: Date(timeIntervalSince1970: Double(issued)),
            expiresAt: Date(timeIntervalSince1970: Double(expires)), user: user)
    }
}

extension PasskeyCeremony.Kind {
    /// The route that starts this kind of ceremony, for messages.
    var optionsRoute: String { self == .registration ? "register/options" : "authenticate/options" }
}

extension ErrorCode where Domain == ServerError {
    /// 400: a passkey ceremony this server did not seal, or malformed.
    package static var ceremonyInvalid: Self { Self(rawValue: "ceremony_invalid") }
    /// 400: a passkey ceremony that expired.
    package static var ceremonyExpired: Self { Self(rawValue: "ceremony_expired") }
    /// 400: a registration ceremony given to `authenticate`, or the reverse.
    package static var ceremonyKindMismatch: Self { Self(rawValue: "ceremony_kind_mismatch") }
    /// 400: a ceremony of another passkey provider.
    package static var ceremonyProviderMismatch: Self { Self(rawValue: "ceremony_provider_mismatch") }
    /// 400: a ceremony already finished once (on any instance).
    package static var ceremonyReused: Self { Self(rawValue: "ceremony_reused") }
}
