"""The embedding examples (examples/Embedding) signing in end to end against `authflow sandbox`.

Each example is started as its own process on a loopback port with a providers.yaml built from the
sandbox's generated client fragment; the browser emulation of the harness signs in over real HTTP
(the app's redirect, the sandbox's consent page, the callback) and the test then reads the signed-in
user back from the example's own routes.

The examples are built by scripts/test.sh (`swift build` in examples/Embedding), which passes their
bin directory as AUTHFLOW_EMBEDDING_BIN.
"""

from __future__ import annotations

import os
import queue
import re
import secrets
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

import authflow_harness as harness

SANDBOX_LINE = re.compile(r"^AuthFlow sandbox identity provider listening on (http://\S+)\s*$")
EXAMPLE_LINE = re.compile(r"^\w+ listening on (http://\S+)")


class LineProcess:
    """A child process whose stdout is read line by line; `start` waits for a line matching `ready`."""

    def __init__(self, arguments: list[str], *, workdir: Path, label: str):
        self.arguments = arguments
        self.workdir = workdir
        self.label = label
        self.lines: list[str] = []
        self._queue: queue.Queue = queue.Queue()
        self.stderr_path = workdir / f"{label}.stderr"
        self.process: subprocess.Popen | None = None

    def start(self, ready: re.Pattern, timeout: float = harness.STARTUP_TIMEOUT) -> re.Match:
        env = {key: value for key, value in os.environ.items() if key not in harness.CREDENTIAL_VARIABLES}
        with open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                self.arguments, cwd=self.workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=stderr, start_new_session=True)
        threading.Thread(target=self._read, name=f"{self.label}-stdout", daemon=True).start()
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{self.label}: no line matching {ready.pattern!r} within {timeout:.0f} s\n"
                                     + self.diagnostics())
            try:
                line = self._queue.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                if self.process.poll() is not None:
                    raise AssertionError(f"{self.label} exited with {self.process.returncode} before it was "
                                         "ready\n" + self.diagnostics())
                continue
            if line is None:
                raise AssertionError(f"{self.label} closed its stdout before it was ready\n" + self.diagnostics())
            if match := ready.match(line):
                return match

    def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.lines.append(line)
            self._queue.put(line)
        self._queue.put(None)

    def stop(self) -> int | None:
        """SIGTERM, then SIGKILL after the harness's stop timeout; returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=harness.STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        if self.process.stdout is not None:
            self.process.stdout.close()
        return self.process.returncode

    def diagnostics(self) -> str:
        try:
            stderr = self.stderr_path.read_text(errors="replace")
        except OSError:
            stderr = ""
        return (f"command: {' '.join(self.arguments)}\n--- stdout\n" + "\n".join(self.lines[-30:])
                + "\n--- stderr\n" + stderr[-3000:])


def example_binary(name: str) -> str:
    directory = os.environ.get("AUTHFLOW_EMBEDDING_BIN")
    if not directory:
        harness.missing("AUTHFLOW_EMBEDDING_BIN is not set: build examples/Embedding and point it at its bin "
                        "directory (scripts/test.sh does both)")
    path = os.path.join(directory, name)
    if not os.access(path, os.X_OK):
        harness.missing(f"the embedding example {path} does not exist or is not executable")
    return path


@pytest.fixture
def processes():
    started: list[LineProcess] = []
    yield started
    for process in reversed(started):
        process.stop()


def start_example(name: str, tmp_path: Path, processes: list[LineProcess]) -> tuple[str, str]:
    """Starts `authflow sandbox` and the example `name` wired to it; returns (app URL, sandbox URL)."""
    binary = example_binary(name)
    port = harness.free_port()
    app_url = f"http://localhost:{port}"
    credentials = tmp_path / "sandbox-credentials"
    sandbox = LineProcess(
        [harness.authflow_binary(), "sandbox", "--listen", "127.0.0.1:0",
         "--redirect-uri", app_url + "/auth/{provider}/callback", "--credentials-dir", str(credentials)],
        workdir=tmp_path, label="sandbox")
    processes.append(sandbox)
    sandbox_url = sandbox.start(SANDBOX_LINE).group(1).rstrip("/")
    fragment = credentials / "providers.yaml"
    deadline = time.monotonic() + harness.STARTUP_TIMEOUT
    while not fragment.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert fragment.exists(), f"the sandbox wrote no providers.yaml fragment\n{sandbox.diagnostics()}"

    config = tmp_path / "providers.yaml"
    config.write_text("\n".join([
        "server:",
        f"  listen: 127.0.0.1:{port}",
        f"  public_url: {app_url}",
        f"  secret: {secrets.token_hex(32)}",
        "  allowed_return_to: [/, /app]",
        "  session_ttl: 1h",
        "store:",
        "  kind: memory",
        "",
    ]) + fragment.read_text())
    example = LineProcess([binary, str(config)], workdir=tmp_path, label=name)
    processes.append(example)
    example.start(EXAMPLE_LINE)
    return app_url, sandbox_url


def test_embedded_app_signs_in_under_auth_and_its_protected_page_greets_the_user(tmp_path, processes):
    app_url, sandbox_url = start_example("EmbeddedApp", tmp_path, processes)
    browser = harness.Browser(app_url, sandbox_url, name="embedded-app")

    # Before signing in, the app's own protected page sends the browser home.
    before = browser.get("/app", initiator=app_url)
    assert before.status_code == 303 and before.headers.get("Location") == "/", (before.status_code, before.text)
    home = browser.get("/", initiator=None)
    assert home.status_code == 200 and "/auth/google/login?return_to=/app" in home.text, home.text[:500]

    identity = harness.Identity.fresh("google", name="Ada Example")
    session = browser.signed_in("google", identity, return_to="/app")
    assert session["provider"] == "google" and session["subject"] == identity.subject, session

    page = browser.get("/app", initiator=app_url)
    assert page.status_code == 200, (page.status_code, page.text[:500])
    assert "Hello, Ada Example" in page.text, page.text[:500]
    assert f'<code id="user-id">{session["user_id"]}</code>' in page.text, page.text[:500]
    assert page.headers.get("Cache-Control") == "no-store"

    # Signing out through the mounted /auth/logout closes the app's page again.
    assert browser.logout().status_code == 204
    after = browser.get("/app", initiator=app_url)
    assert after.status_code == 303, (after.status_code, after.text[:300])

    # Paths that are neither the app's nor AuthFlow's are the app's 404.
    missing = browser.get("/nowhere", initiator=app_url)
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"


def test_own_sessions_backend_signs_in_with_the_bare_driver_and_keeps_its_own_session(tmp_path, processes):
    app_url, sandbox_url = start_example("OwnSessions", tmp_path, processes)
    browser = harness.Browser(app_url, sandbox_url, name="own-sessions")

    assert browser.get("/me", initiator=app_url).status_code == 401

    identity = harness.Identity.fresh("google", name="Grace Example")
    flow = browser.sign_in("google", identity, return_to=None)
    result = flow.result
    assert result is not None and result.status_code == 303 and result.headers.get("Location") == "/me", (
        result.status_code if result is not None else None, result.text[:500] if result is not None else "")
    assert any(cookie.name == "own_session" for cookie in browser.session.cookies)

    me = browser.get("/me", initiator=app_url)
    assert me.status_code == 200, (me.status_code, me.text[:500])
    user = me.json()
    assert user["provider"] == "google" and user["subject"] == identity.subject, user
    assert user["name"] == "Grace Example" and user["email"] == identity.email, user

    # A second sign-in with the same identity finds the same user in the backend's table.
    again = browser.sign_in("google", identity, return_to=None)
    assert again.result is not None and again.result.status_code == 303
    assert browser.get("/me", initiator=app_url).json()["user_id"] == user["user_id"]

    # The flow is bound to the browser: a callback delivered without the flow cookie is refused.
    stranger = harness.Browser(app_url, sandbox_url, name="stranger")
    hijacked = browser.start("google", return_to=None)
    browser.consent(hijacked, harness.Identity.fresh("google"))
    callback = browser.callback_from(hijacked)
    refused = stranger.deliver(callback)
    assert refused.status_code == 400, (refused.status_code, refused.text[:300])
    assert stranger.get("/me", initiator=app_url).status_code == 401

    assert browser.app_post("/logout").status_code == 204
    assert browser.get("/me", initiator=app_url).status_code == 401
