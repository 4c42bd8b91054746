// ProviderRegistry.standard
