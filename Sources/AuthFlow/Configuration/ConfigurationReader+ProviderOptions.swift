internal import AuthFlowYAML

extension ConfigurationReader {
    /// The ``ProviderOptions`` of one provider section.
    mutating func readProviderOptions(_ section: Fields, publicURL: String?) -> ProviderOptions {
        var options = ProviderOptions()
        options.tenant = string(section.value("tenant"), path: section.path("tenant"))
        if let tenant = options.tenant, tenant.isEmpty || tenant.contains(where: { $0 == "/" || $0 == " " }) {
            report(
                .invalidValue,
                "expected a tenant name or id without '/' or spaces in \(section.path("tenant")), found "
                    + YAMLError.quote(tenant), at: section.value("tenant")?.mark)
            options.tenant = nil
        }
        options.allowedTenants = stringList(section.value("allowed_tenants"), path: section.path("allowed_tenants"))
        options.allowAnyTenant = bool(section.value("allow_any_tenant"), path: section.path("allow_any_tenant"))
        options.baseURL = url(section.value("base_url"), path: section.path("base_url"), allowsQuery: false)
        if let domain = string(section.value("hosted_domain"), path: section.path("hosted_domain")) {
            options.hostedDomain = AccessRules.normalizedDomain(domain)
            if options.hostedDomain == nil {
                report(
                    .invalidValue,
                    "expected a Google Workspace domain like example.com (IDNA in its xn-- form) in "
                        + "\(section.path("hosted_domain")), found " + YAMLError.quote(domain),
                    at: section.value("hosted_domain")?.mark)
            }
        }
        options.allowedOrganizations = gitHubNames(section, key: "allowed_organizations", teams: false)
        options.allowedTeams = gitHubNames(section, key: "allowed_teams", teams: true)
        options.passkey = readPasskeyOptions(section, publicURL: publicURL)
        return options
    }

    /// `allowed_organizations` (logins) or `allowed_teams` (`org/team-slug`), lower-cased; an entry that is
    /// neither is reported at the list's position.
    mutating func gitHubNames(_ section: Fields, key: String, teams: Bool) -> [String]? {
        guard let list = stringList(section.value(key), path: section.path(key)) else { return nil }
        var names: [String] = []
        for entry in list {
            let parts = entry.lowercased().split(separator: "/", omittingEmptySubsequences: false)
            let valid =
                parts.count == (teams ? 2 : 1) && Self.isGitHubLogin(parts[0])
                && (!teams
                    || (1...100).contains(parts[1].utf8.count)
                        && parts[1].utf8.allSatisfy {
                            $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                        })
            guard valid else {
                let form =
                    teams ? "ORGANIZATION/TEAM-SLUG like octo-org/platform" : "an organization login like octo-org"
                report(
                    .invalidValue, "expected \(form) in \(section.path(key)), found " + YAMLError.quote(entry),
                    at: section.value(key)?.mark)
                return nil
            }
            names.append(entry.lowercased())
        }
        return names
    }

    /// A GitHub login: 1 to 39 letters, digits or hyphens, not starting with a hyphen.
    static func isGitHubLogin(_ text: Substring) -> Bool {
        (1...39).contains(text.utf8.count) && !text.hasPrefix("-")
            && text.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") }
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
