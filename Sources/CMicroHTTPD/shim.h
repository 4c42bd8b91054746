#ifndef AF_CMICROHTTPD_SHIM_H
#define AF_CMICROHTTPD_SHIM_H
// libmicrohttpd, as AuthFlowHTTP's server uses it. The variadic MHD_start_daemon gets a typed
// `af_` shim so Swift never calls a C variadic function.
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <stdarg.h>
#include <stdint.h>
#include <microhttpd.h>

/// Unescape callback that leaves the path and query arguments exactly as received (percent
/// escapes intact) so the Swift side decodes them once, per segment, with its own rules.
static inline size_t af_mhd_unescape_none(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls;
    (void)connection;
    return strlen(text);
}

/// Result codes of af_mhd_start_daemon besides success.
enum { AF_MHD_START_OK = 0, AF_MHD_START_BAD_HOST = 1, AF_MHD_START_FAILED = 2 };

/// Starts a daemon on a literal IPv4 or IPv6 host and port (0 = any free port) with an internal
/// polling thread (or a pool of `thread_count` threads), suspend/resume, the access, completion,
/// accept-policy and connection-notification callbacks (all with `handler_cls`), a per-connection
/// memory limit, an idle timeout in seconds and an overall connection limit.
static inline struct MHD_Daemon *af_mhd_start_daemon(unsigned int flags, const char *host, uint16_t port,
                                                     MHD_AccessHandlerCallback handler, void *handler_cls,
                                                     MHD_RequestCompletedCallback completed,
                                                     void *completed_cls, size_t memory_limit,
                                                     unsigned int timeout_seconds, unsigned int thread_count,
                                                     MHD_AcceptPolicyCallback policy,
                                                     MHD_NotifyConnectionCallback notify,
                                                     unsigned int connection_limit, int *result) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        *result = AF_MHD_START_BAD_HOST;
        return NULL;
    }
    struct MHD_Daemon *daemon;
    if (thread_count > 1) {
        daemon = MHD_start_daemon(flags, port, policy, handler_cls, handler, handler_cls,
                                  MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                                  MHD_OPTION_SOCK_ADDR, address,
                                  MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                                  MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                                  MHD_OPTION_UNESCAPE_CALLBACK, af_mhd_unescape_none, NULL,
                                  MHD_OPTION_THREAD_POOL_SIZE, thread_count,
                                  MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                  MHD_OPTION_NOTIFY_CONNECTION, notify, handler_cls,
                                  MHD_OPTION_END);
    } else {
        daemon = MHD_start_daemon(flags, port, policy, handler_cls, handler, handler_cls,
                                  MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                                  MHD_OPTION_SOCK_ADDR, address,
                                  MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                                  MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                                  MHD_OPTION_UNESCAPE_CALLBACK, af_mhd_unescape_none, NULL,
                                  MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                  MHD_OPTION_NOTIFY_CONNECTION, notify, handler_cls,
                                  MHD_OPTION_END);
    }
    *result = daemon == NULL ? AF_MHD_START_FAILED : AF_MHD_START_OK;
    return daemon;
}

/// The port the daemon's listen socket is bound to (0 if unknown).
static inline uint16_t af_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// Writes the numeric address of `address` (IPv4 or IPv6, no port) into `buffer`; returns 0 on success.
static inline int af_mhd_address_text(const struct sockaddr *address, char *buffer, socklen_t length) {
    if (address == NULL) return -1;
    const void *raw;
    if (address->sa_family == AF_INET) {
        raw = &((const struct sockaddr_in *)address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        raw = &((const struct sockaddr_in6 *)address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, raw, buffer, length) == NULL ? -1 : 0;
}

/// Writes the client's numeric address (IPv4 or IPv6, no port) into `buffer`; returns 0 on success.
static inline int af_mhd_client_address(struct MHD_Connection *connection, char *buffer, socklen_t length) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL) return -1;
    return af_mhd_address_text(info->client_addr, buffer, length);
}

/// The connection's socket, or -1.
static inline int af_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The socket context set by the connection-notification callback, or NULL.
static inline void *af_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// Shuts both directions of `fd` down, so the daemon's next read sees the end and closes the connection.
static inline int af_shutdown_socket(int fd) {
    return shutdown(fd, SHUT_RDWR);
}

#endif
