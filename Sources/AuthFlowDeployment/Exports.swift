// `import AuthFlowDeployment` is the one import of a config-driven app: the server, the core, the built-in
// provider plugins and the store backends that `store.kind` selects.
@_exported public import AuthFlowPostgres
@_exported public import AuthFlowProviders
@_exported public import AuthFlowRedis
@_exported public import AuthFlowSQLite
@_exported public import AuthFlowServer
