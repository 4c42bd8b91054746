"""Fixtures of the end-to-end suite: servers on free ports with temporary configurations and stores,
stopped (and, if need be, killed) when the tests that use them are done."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import authflow_harness as harness


def pytest_report_header(config):
    try:
        binary = harness.authflow_binary()
    except Exception as error:  # reported again, as a failure, by the first test that needs it
        binary = f"<unavailable: {error}>"
    return [f"authflow binary: {binary}",
            f"AUTHFLOW_REQUIRE_PEERS={os.environ.get('AUTHFLOW_REQUIRE_PEERS', '')}"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        for server in harness.started_servers[-3:]:
            report.sections.append((f"authflow {server.label} ({' '.join(server.arguments[:1])})",
                                    server.diagnostics()))
    return report


class ServerFactory:
    """Starts servers for one test (or module) and stops them all afterwards."""

    def __init__(self, root: Path):
        self.root = root
        self.servers: list[harness.ServerProcess] = []
        self.count = 0

    def directory(self) -> Path:
        self.count += 1
        path = self.root / f"server-{self.count}"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def config(self, directory: Path | None = None, **kwargs) -> tuple[Path, int]:
        directory = directory or self.directory()
        port = harness.free_port()
        return harness.write_config(directory, port=port, **kwargs), port

    def start(self, config: Path, *, sandbox: bool = True, label: str = "serve", attempts: int = 3,
              **kwargs) -> harness.ServerProcess:
        """Starts `serve`; retries with a fresh port when the chosen one was taken in the meantime."""
        last_error = None
        for _ in range(attempts):
            try:
                server = harness.start_server(config.parent, config, sandbox=sandbox, label=label, **kwargs)
            except harness.ServerError as error:
                last_error = error
                if "in use" not in str(error).lower() and "address" not in str(error).lower():
                    raise
                text = config.read_text()
                old_port = text.split("listen: 127.0.0.1:", 1)[1].split("\n", 1)[0]
                new_port = str(harness.free_port())
                config.write_text(text.replace(f"127.0.0.1:{old_port}\n", f"127.0.0.1:{new_port}\n", 1)
                                  .replace(f"localhost:{old_port}\n", f"localhost:{new_port}\n"))
                continue
            self.servers.append(server)
            return server
        raise last_error

    def launch(self, env_extra: dict | None = None, **config_kwargs) -> harness.ServerProcess:
        config, _ = self.config(**config_kwargs)
        return self.start(config, env_extra=env_extra)

    def stop_all(self) -> None:
        for server in reversed(self.servers):
            server.stop()
        self.servers.clear()


@pytest.fixture
def servers(tmp_path):
    factory = ServerFactory(tmp_path)
    yield factory
    factory.stop_all()


@pytest.fixture(scope="module")
def module_servers(tmp_path_factory):
    factory = ServerFactory(tmp_path_factory.mktemp("servers"))
    yield factory
    factory.stop_all()


@pytest.fixture(scope="module")
def app(module_servers) -> harness.ServerProcess:
    """`authflow serve --sandbox` with the four providers and a SQLite store, shared by a module."""
    return module_servers.launch()


@pytest.fixture(scope="session")
def clock_shim(tmp_path_factory) -> Path:
    """The LD_PRELOAD library that moves a server's wall clock (Tests/e2e/clockshim)."""
    try:
        return harness.build_clock_shim(tmp_path_factory.mktemp("clockshim"))
    except RuntimeError as error:
        harness.missing(f"cannot move the server's clock: {error}")


@pytest.fixture
def server_clock(clock_shim, tmp_path) -> harness.ServerClock:
    return harness.ServerClock(clock_shim, tmp_path)
