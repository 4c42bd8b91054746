import AuthFlow

/// `allowed_organizations` and `allowed_teams`: only members of an organization or team sign in.
///
/// Facts (docs/providers.md, "GitHub"; GitHub's REST documentation): `GET /user/orgs` lists the organizations
/// of the authenticated user (objects with `login`) and `GET /user/teams` the teams across them (objects with
/// `slug` and `organization.login`); an OAuth app token needs the `read:org` scope (or `user`) to see the
/// private memberships, which the plugin then asks for. Both are paginated (`per_page` at most 100); the
/// plugin reads the first 100 of each. The memberships become the identity's groups, `ORG` and `ORG/TEAM-SLUG`
/// (lower-cased), which `server.access` and `/auth/check?group=github:ORG/TEAM` can name.
extension GitHubPlugin {
    /// The organizations and teams of `/user/orgs` and `/user/teams` (`responses[2]`, `responses[3]`) as groups,
    /// checked against the allowed ones.
    ///
    /// - Throws: ``SignInError`` `userinfo_error` when a list is missing or not a list, `organization_not_allowed`
    ///   or `team_not_allowed` (403) when the user is a member of none of the allowed ones.
    func memberships(_ responses: [JSONValue], provider: ResolvedProvider) throws(SignInError) -> [String] {
        guard responses.count >= 4, case .array(let orgs) = responses[2], case .array(let teams) = responses[3]
        else {
            throw SignInError(
                .userinfoError, "expected lists from GitHub's /user/orgs and /user/teams, found another answer",
                provider: provider.name, claim: "orgs")
        }
        let organizations = orgs.compactMap { $0["login"]?.stringValue?.lowercased() }
        let teamNames = teams.compactMap { team -> String? in
            guard let slug = team["slug"]?.stringValue, let org = team["organization"]?["login"]?.stringValue else {
                return nil
            }
            return org.lowercased() + "/" + slug.lowercased()
        }
        if let allowed = allowedOrganizations, allowed.isDisjoint(with: organizations) {
            throw SignInError(
                .organizationNotAllowed,
                "expected a member of one of the allowed GitHub organizations, found a member of none",
                provider: provider.name, claim: "orgs")
        }
        if let allowed = allowedTeams, allowed.isDisjoint(with: teamNames) {
            throw SignInError(
                .teamNotAllowed, "expected a member of one of the allowed GitHub teams, found a member of none",
                provider: provider.name, claim: "teams")
        }
        return organizations + teamNames
    }
}

/// The options GitHub reads: `allowed_organizations`, `allowed_teams`.
struct GitHubPreparation: ProviderPreparing {
    var optionKeys: Set<String> { ["allowed_organizations", "allowed_teams"] }

    /// The plugin with the provider's organizations and teams, lower-cased.
    ///
    /// - Throws: ``ConfigurationError`` for a list of the wrong type or an entry that is no login (`org/team-slug`).
    func configured(with options: ProviderOptions) throws(ConfigurationError) -> any ProviderPlugin {
        var reading = options.reading()
        let organizations = Self.names(&reading, key: "allowed_organizations", teams: false)
        let teams = Self.names(&reading, key: "allowed_teams", teams: true)
        try reading.check()
        return GitHubPlugin(organizations: organizations, teams: teams)
    }

    func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin
    {
        try configured(with: settings.options)
    }

    /// `allowed_organizations` (logins) or `allowed_teams` (`org/team-slug`), lower-cased; an entry that is
    /// neither is reported at the list's position.
    static func names(_ reading: inout ProviderOptions.Reading, key: String, teams: Bool) -> [String]? {
        guard let list = reading.strings(key) else { return nil }
        var names: [String] = []
        for entry in list {
            let parts = entry.lowercased().split(separator: "/", omittingEmptySubsequences: false)
            let valid =
                parts.count == (teams ? 2 : 1) && isLogin(parts[0])
                && (!teams
                    || (1...100).contains(parts[1].utf8.count)
                        && parts[1].utf8.allSatisfy {
                            $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                        })
            guard valid else {
                let form =
                    teams ? "ORGANIZATION/TEAM-SLUG like octo-org/platform" : "an organization login like octo-org"
                reading.refuse(
                    key, "expected \(form) in \(reading.path(key)), found " + ProviderOptions.Reading.quote(entry))
                return nil
            }
            names.append(entry.lowercased())
        }
        return names
    }

    /// A GitHub login: 1 to 39 letters, digits or hyphens, not starting with a hyphen.
    static func isLogin(_ text: Substring) -> Bool {
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
