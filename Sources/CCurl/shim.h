#ifndef AF_CCURL_SHIM_H
#define AF_CCURL_SHIM_H
// libcurl, as AuthFlowHTTP's client uses it. Variadic curl_easy_setopt/getinfo get typed
// `af_` shims so Swift never calls a C variadic function.
#include <curl/curl.h>
#endif
