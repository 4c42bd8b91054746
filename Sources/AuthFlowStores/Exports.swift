// A store author who imports AuthFlowStores also sees the JOSE layer its public API is made of: the clocks stores
// take (`WallClock`), and JSON's error-code shape (`ErrorCode`, `CodedError`) of `StoreError`.
@_exported public import AuthFlowJOSE
