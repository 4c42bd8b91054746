// `import AuthFlowProviders` brings the core and every built-in provider plugin.
@_exported public import AuthFlow
@_exported public import AuthFlowApple
@_exported public import AuthFlowDiscord
@_exported public import AuthFlowFacebook
@_exported public import AuthFlowGitHub
@_exported public import AuthFlowGitLab
@_exported public import AuthFlowGoogle
@_exported public import AuthFlowLinkedIn
@_exported public import AuthFlowMicrosoft
@_exported public import AuthFlowOAuth2
@_exported public import AuthFlowOIDC
@_exported public import AuthFlowSlack
@_exported public import AuthFlowX
