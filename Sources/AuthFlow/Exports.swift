// An app that imports AuthFlow also sees the JOSE layer (keys, JWTs, clocks, randomness), the HTTP layer
// (client, server, request and response values) and the storage contract (store protocols, their records and
// errors, the in-memory stores) that the core's public API is made of.
@_exported public import AuthFlowHTTP
@_exported public import AuthFlowJOSE
@_exported public import AuthFlowStores
