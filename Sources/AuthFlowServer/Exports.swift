// `import AuthFlowServer` brings the core (and through it the JOSE and HTTP layers) the server's API uses.
@_exported public import AuthFlow
