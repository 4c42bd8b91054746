// `import AuthFlowServer` brings the core (and through it the JOSE and HTTP layers) the server's API uses, and
// the curl client and the HTTP server an app runs it with.
@_exported public import AuthFlow
@_exported public import AuthFlowCurl
@_exported public import AuthFlowHTTPServer
