"""Throwaway PostgreSQL and Redis servers that a test owns, so that it may stop and restart them.

Each one runs from a temporary data directory on a free loopback port, is restarted on the same port (so
the servers under test need no new configuration), and is stopped and removed by `close()`. PostgreSQL
refuses to run as root, so as root its commands run as the `postgres` user through `runuser`, as in
`scripts/lib/services.sh`. Every wait is bounded.
"""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import authflow_harness as harness

#: Seconds a store may take to start or stop.
SERVICE_TIMEOUT = 30


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=SERVICE_TIMEOUT + 30, check=False,
                            **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} … failed ({result.returncode}): "
                           f"{(result.stderr or result.stdout).strip()[-800:]}")
    return result


def _wait_for_port(port: int, up: bool, what: str) -> None:
    deadline = time.monotonic() + SERVICE_TIMEOUT
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.settimeout(1)
            listening = sock.connect_ex(("127.0.0.1", port)) == 0
        if listening == up:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} on 127.0.0.1:{port} is still {'down' if up else 'up'} after "
                               f"{SERVICE_TIMEOUT} s")
        time.sleep(0.1)


def service_directory() -> Path:
    """A temporary directory under /tmp that the `postgres` user can enter (pytest's are owner-only)."""
    path = Path(tempfile.mkdtemp(prefix="authflow-instances-"))
    path.chmod(0o755)
    return path


class PostgresServer:
    """A PostgreSQL cluster in `directory/postgres` on a free loopback port, database `authflow`."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.data = directory / "postgres"
        self.bin = self._binaries()
        self.port = harness.free_port()
        self.running = False

    @staticmethod
    def _binaries() -> Path:
        candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
                            key=lambda p: [int(x) if x.isdigit() else x for x in p.split("/")[4].split(".")])
        if not candidates:
            harness.missing("PostgreSQL server binaries not found under /usr/lib/postgresql "
                            "(apt-get install postgresql; scripts/lib/setup.sh does)")
        return Path(candidates[-1]).parent

    def _as_postgres(self, command: list[str]) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command

    @property
    def url(self) -> str:
        return f"postgresql://authflow@127.0.0.1:{self.port}/authflow?connect_timeout=3"

    def initialize(self) -> "PostgresServer":
        self.data.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.data, "postgres")
        _run(self._as_postgres([str(self.bin / "initdb"), "-D", str(self.data), "-U", "authflow",
                                            "--auth=trust", "-E", "UTF8"]))
        self.start()
        _run(self._as_postgres([str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                                            "-U", "authflow", "authflow"]))
        return self

    def start(self) -> None:
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.data} "
                   "-c fsync=off")
        _run(self._as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l",
                                            str(self.data / "server.log"), "-w", "-t", str(SERVICE_TIMEOUT),
                                            "start", "-o", options]))
        self.running = True
        _wait_for_port(self.port, True, "PostgreSQL")

    def stop(self, mode: str = "fast") -> None:
        """Stops the server (`fast`: disconnects every client, as an operator's restart does)."""
        _run(self._as_postgres([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w",
                                            "-t", str(SERVICE_TIMEOUT), "stop"]))
        self.running = False
        _wait_for_port(self.port, False, "PostgreSQL")

    def query(self, sql: str, *parameters: str) -> list[list[str]]:
        """Rows of `sql` through psql; `parameters` are bound as psql variables :'p1', :'p2', …"""
        psql = self.bin / "psql"
        command = [str(psql if psql.exists() else "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                   "authflow", "-d", "authflow", "-X", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1"]
        for index, value in enumerate(parameters, start=1):
            command += ["-v", f"p{index}={value}"]
        result = _run(command, input=sql)
        return [line.split("\t") for line in result.stdout.splitlines() if line]

    def close(self) -> None:
        if self.running:
            try:
                self.stop("immediate")
            except Exception:  # noqa: BLE001 (best effort at teardown; the directory goes anyway)
                pass


class RedisServer:
    """redis-server in `directory/redis` on a free loopback port, configured as docs/deployment.md advises:
    an ACL user `authflow` limited to the `authflow:` keys and the commands AuthFlow uses, the `default` user
    kept on behind a password of its own (a Redis without the fix of redis/redis#14545, Debian's 7.0 among
    them, replays the append-only file's MULTI/EXEC blocks, the effects of Lua scripts, as `default`, and
    drops them when it is off), an append-only file (sessions survive a restart) and no eviction."""

    def __init__(self, directory: Path):
        if shutil.which("redis-server") is None:
            harness.missing("redis-server is not installed (apt-get install redis-server; scripts/lib/setup.sh "
                            "does)")
        self.directory = directory / "redis"
        self.directory.mkdir(parents=True)
        self.port = harness.free_port()
        self.password = "test-" + secrets.token_hex(8)
        self.admin_password = secrets.token_hex(16)  # the `default` user's; AuthFlow never uses it
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://authflow:{self.password}@127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.directory),
             "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--maxmemory-policy", "noeviction",
             "--user", "default", "on", f">{self.admin_password}", "~*", "&*", "+@all",
             "--user", "authflow", "on", f">{self.password}", "~authflow:*", "+@read", "+@write", "+@scripting",
             "+ping", "+select", "--logfile", str(self.directory / "redis.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        _wait_for_port(self.port, True, "Redis")
        return self

    def stop(self) -> None:
        """SIGTERM (Redis's own shutdown: clients are disconnected, the append-only file is flushed)."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=SERVICE_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=SERVICE_TIMEOUT)
        self.process = None
        _wait_for_port(self.port, False, "Redis")

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=SERVICE_TIMEOUT)
            self.process = None
