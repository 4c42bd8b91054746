"""What the tests of `authflow serve` in normal mode share: a standalone `authflow sandbox` whose providers.yaml
fragment the servers include (test_durability), and for several instances one PostgreSQL and one Redis as well
(test_instances, test_rotation, test_nginx).
"""

from __future__ import annotations

import secrets
import select
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import authflow_harness as harness
from store_servers import PostgresServer, RedisServer, service_directory


@dataclass
class SharedServices:
    postgres: PostgresServer
    redis: RedisServer
    sandbox_url: str
    #: The sandbox's providers.yaml fragment without its comment lines.
    fragment: str


@contextmanager
def standalone_sandbox(credentials: Path, public_url: str) -> Iterator[tuple[str, str]]:
    """`authflow sandbox` on a free loopback port, its clients registered for `public_url`'s callbacks and its
    credentials in `credentials`; yields its URL and its providers.yaml fragment without comment lines, and
    stops it on leaving."""
    sandbox = subprocess.Popen(
        [harness.authflow_binary(), "sandbox", "--listen", "127.0.0.1:0", "--credentials-dir", str(credentials),
         "--redirect-uri", public_url + "/auth/{provider}/callback"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        start_new_session=True)
    try:
        readable, _, _ = select.select([sandbox.stdout], [], [], harness.STARTUP_TIMEOUT)
        assert readable, f"authflow sandbox printed nothing within {harness.STARTUP_TIMEOUT} s"
        first = sandbox.stdout.readline().strip()
        assert first.startswith("AuthFlow sandbox identity provider listening on "), first
        # The rest of its summary is read and dropped, so the sandbox never blocks on a full pipe.
        threading.Thread(target=lambda stream: [None for _ in stream], args=(sandbox.stdout,), daemon=True).start()
        fragment_path = credentials / "providers.yaml"
        deadline = time.monotonic() + harness.STARTUP_TIMEOUT
        while not fragment_path.exists():
            assert time.monotonic() < deadline, "the sandbox wrote no providers.yaml fragment"
            time.sleep(0.05)
        fragment = "\n".join(line for line in fragment_path.read_text().splitlines() if not line.startswith("#"))
        yield first.rsplit(" ", 1)[1].rstrip("/"), fragment
    finally:
        sandbox.terminate()
        try:
            sandbox.wait(timeout=30)
        except subprocess.TimeoutExpired:
            sandbox.kill()
            sandbox.wait(timeout=30)


@contextmanager
def shared_services(work: Path, public_url: str) -> Iterator[SharedServices]:
    """Starts PostgreSQL, Redis and `authflow sandbox` (clients registered for `public_url`'s callbacks, its
    credentials under `work`); stops all three and removes their files on leaving."""
    directory = service_directory()
    postgres = PostgresServer(directory)
    redis = RedisServer(directory)
    try:
        postgres.initialize()
        redis.start()
        with standalone_sandbox(work / "sandbox-credentials", public_url) as (sandbox_url, fragment):
            yield SharedServices(postgres=postgres, redis=redis, sandbox_url=sandbox_url, fragment=fragment)
    finally:
        redis.close()
        postgres.close()
        shutil.rmtree(directory, ignore_errors=True)


def instance_config(services: SharedServices, server: list[str], fragment: str | None = None) -> str:
    """An instance's providers.yaml: `server:` with `server` lines (indented already), the shared stores, and
    the providers of `fragment` (the sandbox's by default)."""
    return "\n".join([
        "server:",
        *server,
        "store:",
        "  kind: postgres",
        f"  postgres_url: {services.postgres.url}",
        f"  redis_url: {services.redis.url}",
        "",
    ]) + (services.fragment if fragment is None else fragment) + "\n"


def proxied_instances(module_servers, services: SharedServices, work: Path, public_url: str,
                      labels: tuple[str, ...] = ("A", "B")) -> list[harness.ServerProcess]:
    """Instances in normal mode on the shared stores behind a proxy at `public_url` on this machine (one secret,
    `allowed_return_to: [/]`, `trusted_proxies: [127.0.0.1]`), as test_nginx, test_caddy and test_traefik run
    them."""
    secret = secrets.token_hex(32)
    started = []
    for label in labels:
        folder = work / label
        folder.mkdir()
        config = folder / "providers.yaml"
        config.write_text(instance_config(services, [
            f"  listen: 127.0.0.1:{harness.free_port()}",
            f"  public_url: {public_url}",
            f"  secret: {secret}",
            "  allowed_return_to: [/]",
            "  trusted_proxies: [127.0.0.1]",
        ]))
        started.append(module_servers.start(config, sandbox=False, label=label))
    return started


def substitute(text: str, replacements: list[tuple[str, str]], example: str) -> str:
    """Replaces each address of an example; every one must be there, so the file cannot drift silently."""
    for old, new in replacements:
        assert old in text, f"{example} no longer contains {old!r}"
        text = text.replace(old, new)
    return text


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A certificate and key for `localhost`, valid two days, for a proxy's TLS."""
    certificate, key = directory / "localhost.pem", directory / "localhost.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", str(key), "-out", str(certificate), "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost"],
        check=True, capture_output=True, timeout=60)
    return certificate, key
