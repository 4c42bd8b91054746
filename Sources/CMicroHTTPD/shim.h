#ifndef AF_CMICROHTTPD_SHIM_H
#define AF_CMICROHTTPD_SHIM_H
// libmicrohttpd, as AuthFlowHTTP's server uses it. The variadic MHD_start_daemon gets a typed
// `af_` shim so Swift never calls a C variadic function.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>
#endif
