#ifndef AF_CSQLITE_SHIM_H
#define AF_CSQLITE_SHIM_H
// The system SQLite 3, as AuthFlowSQLite uses it. Only files under Sources/AuthFlowSQLite/SQLite/ import
// this module. Function-like macros and variadic functions get typed `af_` shims here.
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer: SQLite copies the bytes before the call
// returns, so Swift may pass a pointer that is only valid for the duration of the call.
static inline int af_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int af_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

// sqlite3_db_config is variadic; this form sets an integer option and ignores the reported value.
static inline int af_sqlite3_db_config_flag(sqlite3 *db, int option, int value) {
    return sqlite3_db_config(db, option, value, (int *)0);
}

// Syncs the main database's write-ahead log through SQLite's own file object for it
// (SQLITE_FCNTL_JOURNAL_POINTER), as `synchronous = FULL` does at every commit: on Linux, one fdatasync of
// the -wal file. SQLITE_MISUSE when the database has no log open (not in WAL mode).
static inline int af_sqlite3_sync_wal(sqlite3 *db) {
    sqlite3_file *file = 0;
    int status = sqlite3_file_control(db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &file);
    if (status != SQLITE_OK) return status;
    if (file == 0 || file->pMethods == 0) return SQLITE_MISUSE;
    return file->pMethods->xSync(file, SQLITE_SYNC_NORMAL);
}
#endif
