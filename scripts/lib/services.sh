# A throwaway PostgreSQL server for the test run: a temporary data directory, listening on a free
# loopback port only, stopped and removed by stop_test_services (call it from an EXIT trap).
# Sourced, not run. Exports AUTHFLOW_TEST_POSTGRES_URL.

AF_SERVICES_DIR=""
AF_POSTGRES_BIN=""

# af_free_port: prints a TCP port on 127.0.0.1 that nothing listens on.
af_free_port() {
    python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

# af_postgres_bin: the directory holding initdb/pg_ctl of the newest installed PostgreSQL.
af_postgres_bin() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    [ -n "$dir" ] || { echo "PostgreSQL server binaries not found under /usr/lib/postgresql" >&2; return 1; }
    echo "$dir"
}

# af_run_as_postgres CMD...: PostgreSQL refuses to run as root; run as the `postgres` user then.
af_run_as_postgres() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# start_test_postgres: initdb in a temporary directory, start on a free loopback port, create the
# `authflow` database; exports AUTHFLOW_TEST_POSTGRES_URL and AUTHFLOW_TEST_POSTGRES_DATA.
start_test_postgres() {
    AF_POSTGRES_BIN="$(af_postgres_bin)"
    local data="$AF_SERVICES_DIR/postgres" port
    port="$(af_free_port)"
    mkdir -p "$data"
    [ "$(id -u)" -eq 0 ] && chown postgres "$AF_SERVICES_DIR" "$data"
    af_run_as_postgres "$AF_POSTGRES_BIN/initdb" -D "$data" -U authflow --auth=trust -E UTF8 >/dev/null
    af_run_as_postgres "$AF_POSTGRES_BIN/pg_ctl" -D "$data" -l "$data/server.log" -w -t 30 start \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$data -c fsync=off" >/dev/null
    af_run_as_postgres "$AF_POSTGRES_BIN/createdb" -h 127.0.0.1 -p "$port" -U authflow authflow
    export AUTHFLOW_TEST_POSTGRES_DATA="$data"
    export AUTHFLOW_TEST_POSTGRES_URL="postgresql://authflow@127.0.0.1:$port/authflow?connect_timeout=5"
    echo "==> PostgreSQL on 127.0.0.1:$port ($data)"
}

# start_test_services: the servers in one temporary directory.
start_test_services() {
    AF_SERVICES_DIR="$(mktemp -d /tmp/authflow-services.XXXXXX)"
    chmod 755 "$AF_SERVICES_DIR"
    start_test_postgres
}

# stop_test_services: stops the servers and removes their data.
stop_test_services() {
    [ -n "$AF_SERVICES_DIR" ] || return 0
    if [ -n "$AF_POSTGRES_BIN" ] && [ -f "$AF_SERVICES_DIR/postgres/postmaster.pid" ]; then
        af_run_as_postgres "$AF_POSTGRES_BIN/pg_ctl" -D "$AF_SERVICES_DIR/postgres" -m immediate -w stop \
            >/dev/null 2>&1 || true
    fi
    rm -rf "$AF_SERVICES_DIR"
    AF_SERVICES_DIR=""
}
