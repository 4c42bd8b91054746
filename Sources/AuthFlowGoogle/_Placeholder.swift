// The AuthFlowGoogle provider plugin.
