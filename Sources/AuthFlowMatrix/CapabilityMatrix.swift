public import AuthFlow

/// The capability matrix of a set of configured providers: one row per provider plus advisories.
///
/// Every value is read from the `ResolvedProvider`s the sign-in flow runs with (capability support and
/// state from the plugins' declarations, protocol, identity source, client authentication, callback method,
/// round trips), so the report cannot drift from what runs. Framework-neutral: ``render(format:)`` returns a
/// string and ``MatrixFormat/contentType`` says how to serve it.
///
/// ```swift
/// let providers = try ProviderRegistry.standard.resolve(configuration)
/// let page = CapabilityMatrix(providers: providers).render(format: .html)
/// ```
public struct CapabilityMatrix: Sendable, Hashable {
    /// One row per provider, in configuration order.
    package let rows: [MatrixRow]
    /// Where the configuration came from (e.g. `providers.yaml`), shown by the text, Markdown and HTML renderings.
    package let source: String?

    /// Builds the matrix of `providers`.
    ///
    /// - Parameters:
    ///   - providers: the resolved providers, in configuration order.
    ///   - source: the configuration's file name, shown in the headings; `nil` to leave it out.
    ///   - storesTokens: whether the deployment keeps provider tokens (`authflow serve` does); enables the
    ///     refresh-token advisory.
    ///   - options: the `OAuthFlow.Options` the flow runs with (the client-secret JWT lifetime is reported).
    public init(
        providers: [ResolvedProvider], source: String? = nil, storesTokens: Bool = true,
        options: SignIn.Options = .init()
    ) {
        self.init(
            providers: providers, source: source, storesTokens: storesTokens, options: options, access: AccessRules())
    }

    /// Builds the matrix of `providers` with the server's access rules (`server.access`): an unqualified group
    /// or role rule among several providers is advised on every row (`AccessRules.unqualifiedRuleAdvice(configured:)`).
    package init(
        providers: [ResolvedProvider], source: String? = nil, storesTokens: Bool = true,
        options: SignIn.Options = .init(), access: AccessRules
    ) {
        let accessAdvice = access.unqualifiedRuleAdvice(configured: providers.map(\.name))
        rows = providers.map {
            MatrixRow(provider: $0, storesTokens: storesTokens, options: options, accessAdvice: accessAdvice)
        }
        self.source = source
    }

    /// Every advisory, provider by provider.
    package var advisories: [Advisory] { rows.flatMap(\.advisories) }

    /// The matrix in `format`; every rendering ends with a newline.
    public func render(format: MatrixFormat) -> String {
        switch format {
        case .text: renderText()
        case .markdown: renderMarkdown()
        case .json: renderJSON()
        case .html: renderHTML()
        }
    }
}
