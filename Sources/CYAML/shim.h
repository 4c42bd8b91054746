#ifndef AF_CYAML_SHIM_H
#define AF_CYAML_SHIM_H
// libyaml, as AuthFlowYAML's parser uses it.
#include <yaml.h>
#endif
