// The AuthFlowFacebook provider plugin.
