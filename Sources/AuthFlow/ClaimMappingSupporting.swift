/// A plugin whose identity follows `providers.NAME.claims` (``ClaimMapping``); `claims:` on a provider whose
/// plugin does not conform is a configuration error (such plugins read the identity their own way).
public protocol ClaimMappingSupporting: ProviderPlugin {}
