#ifndef AF_CHIREDIS_SHIM_H
#define AF_CHIREDIS_SHIM_H
// hiredis, the Redis client library, as AuthFlowRedis uses it. Only files under
// Sources/AuthFlowRedis/Hiredis/ import this module. Only redisCommandArgv is called (the variadic
// redisCommand is not callable from Swift, and argv keeps values binary-safe and out of command text).
#include <hiredis/hiredis.h>

// A timeval from milliseconds, for the connect and command timeouts.
static inline struct timeval af_redis_timeval(long milliseconds) {
    struct timeval value;
    value.tv_sec = milliseconds / 1000;
    value.tv_usec = (milliseconds % 1000) * 1000;
    return value;
}
#endif
