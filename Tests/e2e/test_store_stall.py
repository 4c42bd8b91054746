"""A PostgreSQL or Redis that stops answering never hangs a request.

The test owns its servers and stops them with SIGSTOP: the kernel still accepts connections and acknowledges
what is sent, as when a proxy (pgbouncer, HAProxy) stays up while its backend stalls, so only a client-side
deadline ends the wait. With `store.operation_timeout: 2s`, every request that needs the stalled store gets a
typed 503 within a bound (three times the deadline: generous, not a performance figure), a burst of them
does not take the threads a route on the other store needs, and after SIGCONT everything answers again.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
import requests

import authflow_harness as harness
from store_servers import PostgresServer, RedisServer, service_directory

#: `store.operation_timeout` of the server under test, in seconds.
OPERATION_TIMEOUT = 2
#: A request needing a stalled store must be answered within this many seconds.
BOUND = 3 * OPERATION_TIMEOUT
#: Concurrent requests during a stall: more than the stores' pools and pending limits, as in the report.
BURST = 24
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


def test_a_stopped_postgres_gives_503_within_the_deadline_and_redis_routes_go_on(stall):
    wait_healthy(stall)
    pids = postgres_processes(stall.postgres)
    signal_all(pids, signal.SIGSTOP)
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            healths = pool.submit(burst, stall, health)
            time.sleep(0.3)  # the burst holds whatever threads it can
            logouts = [logout(stall) for _ in range(5)]
            answers = healths.result()
        for response, seconds in answers:
            assert response.status_code == 503, f"/healthz during the stall: {response.status_code} {response.text}"
            body = response.json()
            assert body.get("store") == "accounts" and body.get("backend") == "postgres", response.text
            assert seconds < BOUND, f"/healthz took {seconds:.1f} s with PostgreSQL stopped (bound {BOUND} s)"
        for response, seconds in logouts:
            assert response.status_code == 204, f"logout (Redis only): {response.status_code} {response.text}"
            assert seconds < BOUND, f"logout took {seconds:.1f} s while PostgreSQL was stopped"
    finally:
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
