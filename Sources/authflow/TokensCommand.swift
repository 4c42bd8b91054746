import AuthFlow
import AuthFlowDeployment
import Foundation

/// `authflow tokens refresh PROVIDER:SUBJECT [--config F]`: redeems the refresh token stored for an identity
/// at its provider, through the same refresher (lease, client authentication, storage) a server uses, and
/// stores the answer. Prints when the new access token expires, never a token.
struct TokensCommand: Command {
    static let name = "tokens refresh"

    static let usage = """
        usage: authflow tokens refresh PROVIDER:SUBJECT [--config FILE]

          refresh          redeems the identity's stored refresh token at its provider's token endpoint
                           (authenticated as the provider's client_auth says) and stores the new tokens,
                           as a server's token refresher does; the tokens themselves are never printed
          PROVIDER:SUBJECT the linked identity (the provider's name in the configuration, the subject as
                           authflow users show prints it)
          --config FILE    the configuration whose providers and store to use (default: providers.yaml)

        Exit codes: 0 refreshed, 1 no such tokens, the provider refused or the configuration or store
        refused (reason on stderr), 2 usage error.
        """

    var identity: IdentityKey
    var path: String

    static func parse(_ arguments: [String]) throws(ValidationError) -> TokensCommand? {
        if arguments.first == "--help" || arguments.first == "-h" { return nil }
        guard arguments.first == "refresh" else {
            throw ValidationError(
                "command", expected: "'authflow tokens refresh PROVIDER:SUBJECT'",
                found: arguments.first.map { "the unknown tokens command \(ValidationError.quoted($0))" } ?? "none")
        }
        let parsed = try CommandIO.parse(Array(arguments.dropFirst()), options: ["config"])
        if parsed.help { return nil }
        guard parsed.positional.count == 1, let argument = parsed.positional.first,
            let colon = argument.firstIndex(of: ":"), colon != argument.startIndex,
            argument.index(after: colon) != argument.endIndex
        else {
            throw ValidationError(
                "PROVIDER:SUBJECT", expected: "one identity, a provider name and a subject joined by ':'",
                found: parsed.positional.count == 1
                    ? "no provider or no subject" : "\(parsed.positional.count) arguments")
        }
        let key = IdentityKey(
            provider: String(argument[..<colon]), subject: String(argument[argument.index(after: colon)...]))
        return TokensCommand(identity: key, path: parsed.last("config") ?? "providers.yaml")
    }

    func validate() throws(ValidationError) {
        try CommandIO.requireNonEmpty(path, option: "config", expected: "a FILE")
    }

    func run() async -> ExitCode {
        do throws(AdminStores.Failure) {
            let admin = try AdminStores.open(path: path)
            let providers: [ResolvedProvider]
            do throws(ConfigurationError) {
                providers = try await ConfigurationResolution.resolve(admin.configuration)
            } catch {
                throw AdminStores.Failure(description: error.issues.map(\.description).joined(separator: "\n"))
            }
            let before: StoredTokens?
            do throws(StoreError) {
                before = try await admin.stores.accounts.tokens(for: identity)
            } catch {
                throw AdminStores.Failure(description: "store: \(error)")
            }
            let server = SignInServer(
                options: admin.options, providers: providers, stores: admin.stores, httpClient: CurlHTTPClient(),
                logger: StandardErrorLogger(minimumLevel: .warning))
            let after: StoredTokens
            do throws(TokenRefreshError) {
                after = try await server.tokenRefresher().accessToken(for: identity, forceRefresh: true)
            } catch {
                throw AdminStores.Failure(description: Self.describe(error))
            }
            CommandIO.out(Self.summary(identity, before: before, after: after))
            return .success
        } catch {
            return error.report(Self.name)
        }
    }

    /// `code: message`, with the provider's own error (never a token) when it refused.
    static func describe(_ error: TokenRefreshError) -> String {
        guard let signIn = error.signInError else { return error.description }
        return "\(error.code.rawValue): \(signIn)"
    }

    /// One line: the identity, when the new access token expires, whether the refresh token was replaced.
    static func summary(_ identity: IdentityKey, before: StoredTokens?, after: StoredTokens) -> String {
        let expiry = after.accessTokenExpiresAt.map { "valid until \(AdminStores.timestamp($0))" } ?? "no expiry given"
        let rotation: String
        switch (before?.refreshToken, after.refreshToken) {
        case (_, nil): rotation = "no refresh token kept"
        case (let old?, let new?) where old == new: rotation = "refresh token kept"
        default: rotation = "refresh token replaced"
        }
        return "refreshed the tokens of \(TerminalText.escaped(identity.description)): access token \(expiry), "
            + rotation
    }
}
