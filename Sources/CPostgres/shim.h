#ifndef AF_CPOSTGRES_SHIM_H
#define AF_CPOSTGRES_SHIM_H
// libpq, the PostgreSQL client library, as AuthFlowPostgres uses it. Only files under
// Sources/AuthFlowPostgres/Postgres/ import this module.
#include <libpq-fe.h>

// A notice processor that drops server notices (libpq prints them to stderr by default; they can name
// objects but never carry bound values, and the store has no use for them).
static void af_pq_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

static inline void af_pq_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, af_pq_ignore_notice, (void *)0);
}
#endif
