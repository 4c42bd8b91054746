// The AuthFlowApple provider plugin.
