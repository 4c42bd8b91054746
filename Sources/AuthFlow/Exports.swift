// An app that imports AuthFlow also sees the JOSE layer (keys, JWTs, clocks, randomness) and the HTTP layer
// (client, server, request and response values) that the core's public API is made of.
@_exported public import AuthFlowHTTP
@_exported public import AuthFlowJOSE
