// The AuthFlowX provider plugin.
