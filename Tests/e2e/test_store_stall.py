"""A PostgreSQL or Redis that stops answering never hangs a request.

The test owns its servers and stops them with SIGSTOP: the kernel still accepts connections and acknowledges
what is sent, as when a proxy (pgbouncer, HAProxy) stays up while its backend stalls, so only a client-side
deadline ends the wait. With `store.operation_timeout: 5s`, every request that needs the stalled store gets a
typed 503 within a bound (three times the deadline: generous, not a performance figure), and after SIGCONT
everything answers again.

While as many requests as there are handler threads (64) wait on a stalled PostgreSQL, a route that needs
only Redis (logout with a made-up session cookie) is answered before any of them: waiting for a pooled
connection holds no thread. It used to wait for a handler thread until the stalled operations' deadline.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

import authflow_harness as harness
from store_servers import PostgresServer, RedisServer, service_directory

#: `store.operation_timeout` of the server under test, in seconds (the default).
OPERATION_TIMEOUT = 5
#: A request needing a stalled store must be answered within this many seconds.
BOUND = 3 * OPERATION_TIMEOUT
#: Concurrent requests during a stall: more than the stores' pools and pending limits, as in the report.
BURST = 24
#: Requests waiting on the stalled PostgreSQL at once: as many as the handler threads, which is also how many
#: operations a store lets run or wait at once (all of them wait for the deadline, none is refused at once).
WAITING = 64
#: Bound for the server to accept the waiting requests' connections.
ACCEPT_DEADLINE = 30
#: Bound for the server to answer 200 again after SIGCONT.
RECOVERY_DEADLINE = 30


@dataclass
class Stall:
    server: harness.ServerProcess
    postgres: PostgresServer
    redis: RedisServer


def postgres_processes(postgres: PostgresServer) -> list[int]:
    """The postmaster (first line of postmaster.pid) and every process it started."""
    postmaster = int((postgres.data / "postmaster.pid").read_text().splitlines()[0])
    children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True, check=False)
    return [postmaster] + [int(pid) for pid in children.stdout.split()]


def signal_all(pids: list[int], number: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, number)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def stall(module_servers, tmp_path_factory):
    directory = service_directory()
    postgres = PostgresServer(directory)
    redis = RedisServer(directory)
    try:
        postgres.initialize()
        redis.start()
        folder = tmp_path_factory.mktemp("stall")
        port = harness.free_port()
        config = folder / "providers.yaml"
        config.write_text("\n".join([
            "server:",
            f"  listen: 127.0.0.1:{port}",
            f"  public_url: http://localhost:{port}",
            f"  secret: {os.urandom(32).hex()}",
            "  allowed_return_to: [/]",
            "store:",
            "  kind: postgres",
            f"  postgres_url: {postgres.url}",
            f"  redis_url: {redis.url}",
            f"  operation_timeout: {OPERATION_TIMEOUT}s",
            "providers:",
            "  x:",
            "    type: x",
            "    client_id: abc",
            "    client_secret: stall-test-client-secret",
            "    scopes: [users.read, tweet.read, offline.access]",
            "",
        ]))
        server = module_servers.start(config, sandbox=False, label="stall")
        yield Stall(server, postgres, redis)
        module_servers.stop_all()
    finally:
        redis.close()
        postgres.close()
        shutil.rmtree(directory, ignore_errors=True)


def timed(method: str, url: str, **kwargs) -> tuple[requests.Response, float]:
    started = time.monotonic()
    response = harness.direct.request(method, url, timeout=BOUND * 4, **kwargs)
    return response, time.monotonic() - started


def health(stall: Stall) -> tuple[requests.Response, float]:
    return timed("GET", stall.server.listen_url + "/healthz")


def logout(stall: Stall) -> tuple[requests.Response, float]:
    """A Redis-only route: ending a (made-up) session deletes it from the session store."""
    return timed("POST", stall.server.listen_url + "/auth/logout",
                 headers={"Origin": stall.server.app_url, "Cookie": "authflow_session=stall-test-cookie"})


def wait_healthy(stall: Stall) -> None:
    deadline = time.monotonic() + RECOVERY_DEADLINE
    while True:
        response, _ = health(stall)
        if response.status_code == 200:
            return
        assert time.monotonic() < deadline, f"/healthz still {response.status_code} {response.text[:200]}"
        time.sleep(0.2)


def burst(stall: Stall, call) -> list[tuple[requests.Response, float]]:
    with ThreadPoolExecutor(max_workers=BURST) as pool:
        return list(pool.map(lambda _: call(stall), range(BURST)))


def send_health_requests(stall: Stall, count: int) -> list[socket.socket]:
    """`count` connections, each with one `GET /healthz` sent and its answer not read yet."""
    host, port = stall.server.listen_url.split("//", 1)[1].rsplit(":", 1)
    sockets = []
    for _ in range(count):
        sock = socket.create_connection((host, int(port)), timeout=BOUND * 4)
        sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        sockets.append(sock)
    return sockets


def accepted(stall: Stall, sockets: list[socket.socket]) -> int:
    """How many of `sockets` the server process has accepted: sockets it holds whose peer is one of them."""
    pid = stall.server.process.pid
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    ours = {sock.getsockname()[1] for sock in sockets}
    count = 0
    for line in Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[9] in inodes and int(fields[2].rsplit(":", 1)[1], 16) in ours:
            count += 1
    return count


def wait_accepted(stall: Stall, sockets: list[socket.socket]) -> None:
    deadline = time.monotonic() + ACCEPT_DEADLINE
    while (count := accepted(stall, sockets)) < len(sockets):
        assert time.monotonic() < deadline, f"the server accepted {count} of {len(sockets)} connections"
        time.sleep(0.05)


def answered(sockets: list[socket.socket]) -> int:
    """How many of `sockets` have an answer (or a close) waiting to be read; never blocks."""
    poller = select.poll()
    for sock in sockets:
        poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
    return len(poller.poll(0))


def read_answer(sock: socket.socket) -> tuple[int, bytes]:
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, response.read()


def test_a_stopped_postgres_gives_503_within_the_deadline_and_redis_routes_go_on(stall):
    wait_healthy(stall)
    pids = postgres_processes(stall.postgres)
    signal_all(pids, signal.SIGSTOP)
    waiting: list[socket.socket] = []
    try:
        started = time.monotonic()
        waiting = send_health_requests(stall, WAITING)
        wait_accepted(stall, waiting)
        # Every handler thread could be waiting on PostgreSQL now; a Redis-only route must not wait for them.
        response, seconds = logout(stall)
        early = answered(waiting)
        print(f"logout with {WAITING} requests waiting on the stopped PostgreSQL: {response.status_code} in "
              f"{seconds * 1000:.0f} ms")
        assert response.status_code == 204, f"logout (Redis only): {response.status_code} {response.text}"
        assert early == 0, (f"logout (Redis only) was answered only after {early} of the {WAITING} requests "
                            f"waiting on PostgreSQL were ({seconds:.1f} s): it waited for them")
        for _ in range(3):
            response, _ = logout(stall)
            assert response.status_code == 204, f"logout (Redis only): {response.status_code} {response.text}"
        for sock in waiting:
            status, body = read_answer(sock)
            seconds = time.monotonic() - started
            assert status == 503, f"/healthz during the stall: {status} {body[:200]!r}"
            fields = json.loads(body)
            assert fields.get("store") == "accounts" and fields.get("backend") == "postgres", body[:200]
            assert seconds < BOUND, f"/healthz took {seconds:.1f} s with PostgreSQL stopped (bound {BOUND} s)"
    finally:
        for sock in waiting:
            sock.close()
        signal_all(pids, signal.SIGCONT)
    wait_healthy(stall)


def test_a_stopped_redis_gives_503_within_the_deadline_and_recovers(stall):
    wait_healthy(stall)
    assert stall.redis.process is not None
    pid = stall.redis.process.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        answers = burst(stall, health) + burst(stall, logout)
        for response, seconds in answers:
            assert response.status_code == 503, f"during the Redis stall: {response.status_code} {response.text}"
            assert seconds < BOUND, f"a request took {seconds:.1f} s with Redis stopped (bound {BOUND} s)"
        for response, _ in answers[:BURST]:
            body = response.json()
            assert body.get("store") == "sessions" and body.get("backend") == "redis", response.text
        for response, _ in answers[BURST:]:
            assert response.json().get("error") == "store_unavailable", response.text
    finally:
        os.kill(pid, signal.SIGCONT)
    wait_healthy(stall)
    response, _ = logout(stall)
    assert response.status_code == 204, f"logout after SIGCONT: {response.status_code} {response.text}"
