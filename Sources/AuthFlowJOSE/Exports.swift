// JWT claims, JWS headers and JWK sets are JSON: an app that imports AuthFlowJOSE also sees the JSON values
// and the error-code shape of AuthFlowJSON that this module's public API is made of.
@_exported public import AuthFlowJSON
