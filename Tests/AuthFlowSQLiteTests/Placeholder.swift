// Replaced by the SQLite store tests.
