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
        options.passkey = readPasskeyOptions(section, publicURL: publicURL)
        return options
    }
}
