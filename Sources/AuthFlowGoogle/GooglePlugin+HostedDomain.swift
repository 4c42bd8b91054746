import AuthFlow
import AuthFlowJOSE

/// The one option Google reads, `hosted_domain`: only accounts of one Google Workspace domain sign in.
///
/// Facts (docs/providers.md, "Google"; Google's OpenID Connect documentation): the id_token (and userinfo)
/// carries `hd`, the account's Workspace or Cloud organization domain, only for accounts of such an
/// organization. The `hd` authorization parameter only preselects accounts in Google's chooser, so the claim
/// must be checked; the email's domain proves nothing (a consumer account may use any address it verified).
struct GooglePreparation: ProviderPreparing {
    /// `hosted_domain`.
    var optionKeys: Set<String> { ["hosted_domain"] }

    /// The plugin with the provider's `hosted_domain`.
    ///
    /// - Throws: ``ConfigurationError`` for a `hosted_domain` that is no ASCII domain (IDNA in its `xn--` form).
    func configured(with options: ProviderOptions) throws(ConfigurationError) -> any ProviderPlugin {
        var reading = options.reading()
        var hostedDomain: String?
        if let domain = reading.string("hosted_domain") {
            hostedDomain = AccessRules.normalizedDomain(domain)
            if hostedDomain == nil {
                reading.refuse(
                    "hosted_domain",
                    "expected a Google Workspace domain like example.com (IDNA in its xn-- form) in "
                        + "\(reading.path("hosted_domain")), found " + ProviderOptions.Reading.quote(domain))
            }
        }
        try reading.check()
        return GooglePlugin(hostedDomain: hostedDomain)
    }

    /// No set-up beyond the options.
    func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin
    {
        try configured(with: settings.options)
    }
}

/// The standard OpenID Connect identity of a Google account whose `hd` claim is the configured domain.
struct GoogleHostedDomainIdentity: IdentityStrategy {
    /// The configured domain, lower-cased.
    let hostedDomain: String

    /// The standard identity of the id_token's claims, when its `hd` is the configured domain.
    ///
    /// - Throws: ``SignInError`` `hosted_domain_mismatch` (403) naming `hd` when it is missing or another domain.
    func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError) -> VerifiedIdentity {
        try check(claims["hd"], provider: provider)
        return try StandardIdentity().identity(fromIDToken: claims, provider: provider)
    }

    /// The standard identity of userinfo (`oidc: false`), when its `hd` is the configured domain.
    ///
    /// - Throws: ``SignInError`` `hosted_domain_mismatch` (403) naming `hd` when it is missing or another domain.
    func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        try check(responses.first?.objectValue?["hd"], provider: provider)
        return try StandardIdentity().identity(fromUserinfo: responses, provider: provider)
    }

    func check(_ claim: JSONValue?, provider: ResolvedProvider) throws(SignInError) {
        guard let value = claim?.stringValue else {
            throw SignInError(
                .hostedDomainMismatch,
                "expected an account of the Google Workspace domain \(hostedDomain) ('hd' claim), found an account "
                    + "of no Workspace domain", provider: provider.name, claim: "hd")
        }
        guard AccessRules.normalizedDomain(value) == hostedDomain else {
            throw SignInError(
                .hostedDomainMismatch,
                "expected an account of the Google Workspace domain \(hostedDomain) ('hd' claim), found one of "
                    + "another domain", provider: provider.name, claim: "hd")
        }
    }
}
