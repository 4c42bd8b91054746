# Throwaway PostgreSQL and Redis servers for the test run: a temporary data directory each, listening
# on a free loopback port only, stopped and removed by stop_test_services (call it from an EXIT trap).
# Sourced, not run. Exports AUTHFLOW_TEST_POSTGRES_URL and AUTHFLOW_TEST_REDIS_URL.

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
# `authflow` database; exports AUTHFLOW_TEST_POSTGRES_URL and AUTHFLOW_TEST_POSTGRES_DATA. `max_connections` is
# raised from PostgreSQL's 100: the Swift tests run their suites in parallel, each test with a database and a pool
# of its own, and a test that drops every connection then reconnects must not meet "too many clients".
start_test_postgres() {
    AF_POSTGRES_BIN="$(af_postgres_bin)"
    local data="$AF_SERVICES_DIR/postgres" port
    port="$(af_free_port)"
    mkdir -p "$data"
    [ "$(id -u)" -eq 0 ] && chown postgres "$AF_SERVICES_DIR" "$data"
    af_run_as_postgres "$AF_POSTGRES_BIN/initdb" -D "$data" -U authflow --auth=trust -E UTF8 >/dev/null
    af_run_as_postgres "$AF_POSTGRES_BIN/pg_ctl" -D "$data" -l "$data/server.log" -w -t 30 start \
        -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$data -c fsync=off -c max_connections=400" >/dev/null
    af_run_as_postgres "$AF_POSTGRES_BIN/createdb" -h 127.0.0.1 -p "$port" -U authflow authflow
    export AUTHFLOW_TEST_POSTGRES_DATA="$data"
    export AUTHFLOW_TEST_POSTGRES_URL="postgresql://authflow@127.0.0.1:$port/authflow?connect_timeout=5"
    echo "==> PostgreSQL on 127.0.0.1:$port ($data)"
}

# start_test_redis: redis-server on a free loopback port with a password, no persistence;
# exports AUTHFLOW_TEST_REDIS_URL.
start_test_redis() {
    local dir="$AF_SERVICES_DIR/redis" port password
    port="$(af_free_port)"
    password="test-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
    mkdir -p "$dir"
    redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
        --requirepass "$password" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
    local tries=0
    until redis-cli -h 127.0.0.1 -p "$port" -a "$password" --no-auth-warning ping >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ "$tries" -lt 100 ] || { echo "redis-server did not start" >&2; return 1; }
        sleep 0.1
    done
    export AUTHFLOW_TEST_REDIS_URL="redis://:$password@127.0.0.1:$port/0"
    echo "==> Redis on 127.0.0.1:$port ($dir)"
}

# start_test_services: both servers in one temporary directory.
start_test_services() {
    AF_SERVICES_DIR="$(mktemp -d /tmp/authflow-services.XXXXXX)"
    chmod 755 "$AF_SERVICES_DIR"
    start_test_postgres
    start_test_redis
}

# stop_test_services: stops both servers and removes their data.
stop_test_services() {
    [ -n "$AF_SERVICES_DIR" ] || return 0
    if [ -f "$AF_SERVICES_DIR/redis/redis.pid" ]; then
        kill "$(cat "$AF_SERVICES_DIR/redis/redis.pid")" 2>/dev/null || true
    fi
    if [ -n "$AF_POSTGRES_BIN" ] && [ -f "$AF_SERVICES_DIR/postgres/postmaster.pid" ]; then
        af_run_as_postgres "$AF_POSTGRES_BIN/pg_ctl" -D "$AF_SERVICES_DIR/postgres" -m immediate -w stop \
            >/dev/null 2>&1 || true
    fi
    rm -rf "$AF_SERVICES_DIR"
    AF_SERVICES_DIR=""
}
