// An app that imports this backend also sees the storage contract its stores implement (`AccountStore`,
// `SessionStore`, `FlowStore`, their records and `StoreError`), without importing the core.
@_exported public import AuthFlowStores
