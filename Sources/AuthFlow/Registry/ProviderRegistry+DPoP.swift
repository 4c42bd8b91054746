import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

extension ProviderRegistry {
    /// `dpop: true` against what the provider advertises (RFC 9449 §5.1): a provider that lists its proof
    /// algorithms in `dpop_signing_alg_values_supported` and names neither ES256 nor EdDSA would refuse every
    /// proof AuthFlow signs. A provider that advertises nothing may still bind tokens (the metadata member is
    /// optional), so `dpop: true` is allowed there; its answer's `token_type` then says whether it did.
    static func checkDPoP(
        _ settings: ProviderSettings, plugin: any ProviderPlugin, subject: String, issues: inout [ConfigurationIssue]
    ) {
        guard settings.dpop == .on, let advertised = plugin.dpopSigningAlgorithms,
            ResolvedProvider.dpopAlgorithm(advertised: advertised) == nil
        else { return }
        issues.append(
            ResolutionIssue.make(
                .invalidValue,
                "\(subject) has dpop: true but the provider's metadata lists dpop_signing_alg_values_supported "
                    + "without ES256 or EdDSA (expected one of them, found "
                    + "\(advertised.isEmpty ? "none" : advertised.joined(separator: ", ")))",
                settings.location(of: "dpop")))
    }
}

extension ResolvedProvider {
    /// The algorithm of this provider's DPoP proofs (RFC 9449), or `nil` when its tokens are not bound:
    /// `dpop: false`; `dpop: auto` without an advertised algorithm AuthFlow signs with. ES256 unless the provider
    /// advertises only EdDSA.
    package var dpopAlgorithm: JWSAlgorithm? {
        let advertised = about.dpopSigningAlgorithms
        switch settings.dpop {
        case .off: return nil
        case .on: return advertised.flatMap(Self.dpopAlgorithm(advertised:)) ?? .es256
        case .auto where settings.profile == .fapi2:
            return advertised.flatMap(Self.dpopAlgorithm(advertised:)) ?? .es256
        case .auto: return advertised.flatMap(Self.dpopAlgorithm(advertised:))
        }
    }

    /// ES256 when `advertised` names it, else EdDSA when it names that, else `nil`.
    static func dpopAlgorithm(advertised: [String]) -> JWSAlgorithm? {
        if advertised.contains("ES256") { return .es256 }
        if advertised.contains("EdDSA") { return .edDSA }
        return nil
    }
}

extension ResolvedProvider {
    /// `request` with a fresh `private_key_jwt` assertion in place of the one it carries, for the one retry after a
    /// DPoP nonce challenge (RFC 9449 §8): a server that spent the first assertion's `jti` before it looked at the
    /// proof would refuse it again. Any other request is returned as it is.
    ///
    /// - Throws: ``SignInError`` with `client_authentication_failed` when the assertion cannot be signed.
    func withFreshClientAssertion(_ request: HTTPClientRequest, now: Date) throws(SignInError) -> HTTPClientRequest {
        guard clientAuthentication == .privateKeyJWT, let body = request.body,
            request.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true
        else { return request }
        var fields = FormURLEncoding.decode(String(decoding: body, as: UTF8.self))
        guard let index = fields.firstIndex(where: { $0.0 == "client_assertion" }) else { return request }
        fields[index].1 = try clientAssertion(now: now, random: SystemRandom())
        var renewed = request
        renewed.body = Array(FormURLEncoding.encode(fields).utf8)
        return renewed
    }
}
