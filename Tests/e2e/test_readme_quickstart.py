"""The README's quick start, taken at its word: its `Package.swift` and `main.swift`, extracted from README.md
as they are, become a fresh package in a temporary directory that depends on a clean clone of this
repository by path. The package is built offline (AuthFlow fetches nothing), run in sandbox mode with the
port from the environment, and signed in through the sandbox over real HTTP: once with the default
`/auth` routes and once with `server.path_prefix: /login`, each ended by SIGTERM with a clean exit.

One build serves both runs (the prefix is configuration): building the library from scratch takes several
minutes, so the build directory is `$AUTHFLOW_QUICKSTART_SCRATCH` when set (kept between runs), else a
temporary one.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import authflow_harness as harness

README = harness.REPO_ROOT / "README.md"
SECTION = "## Use it in your Swift backend"
FENCE = re.compile(r"^```swift\n(.*?)^```$", re.M | re.S)
READY = re.compile(r"^authflow: info listening url=(http://\S+)")
#: The clone's folder: not `authflow`, so the `name:` of the README's `.package(path:)` line is what names it.
CLONE = "authflow-checkout"
BUILD_TIMEOUT = 2400


def quickstart_files() -> tuple[str, str]:
    """(Package.swift, main.swift) exactly as the README's quick start shows them."""
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    blocks = FENCE.findall(text[start:end])
    manifests = [block for block in blocks if block.startswith("// swift-tools-version")]
    mains = [block for block in blocks if "runUntilTerminated" in block]
    assert len(manifests) == 1 and len(mains) == 1 and len(blocks) == 2, (
        f"expected the quick start to show one Package.swift and one main.swift, found {len(blocks)} blocks")
    return manifests[0], mains[0]


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory) -> Path:
    """The built quick-start executable."""
    if shutil.which("swift") is None or shutil.which("git") is None:
        harness.missing("the quick-start test needs swift and git on PATH")
    root = tmp_path_factory.mktemp("quickstart")
    head = subprocess.run(["git", "-C", str(harness.REPO_ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(harness.REPO_ROOT), "status", "--porcelain", "--", "README.md"],
                           capture_output=True, text=True, check=True).stdout.strip()
    if dirty:
        pytest.fail("README.md has uncommitted changes: the clone would build another quick start; commit first",
                    pytrace=False)
    clone = root / CLONE
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(harness.REPO_ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", head], check=True)

    manifest, main = quickstart_files()
    assert manifest.count('path: "../authflow"') == 1, "expected one .package(path: \"../authflow\") line"
    app = root / "MyApp"
    (app / "Sources" / "MyApp").mkdir(parents=True)
    (app / "Package.swift").write_text(manifest.replace('path: "../authflow"', f'path: "../{CLONE}"'))
    (app / "Sources" / "MyApp" / "main.swift").write_text(main)

    scratch = Path(os.environ.get("AUTHFLOW_QUICKSTART_SCRATCH") or root / "build")
    started = time.monotonic()
    # Offline: a path dependency with no dependencies of its own, so nothing may be fetched.
    build = subprocess.run(
        ["swift", "build", "--package-path", str(app), "--scratch-path", str(scratch), "--disable-sandbox"],
        capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False,
        env={**os.environ, "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"})
    print(f"quick start built in {time.monotonic() - started:.0f} s")
    assert build.returncode == 0, "the README's quick start does not build:\n" + (build.stdout + build.stderr)[-6000:]
    binary = subprocess.run(
        ["swift", "build", "--package-path", str(app), "--scratch-path", str(scratch), "--show-bin-path"],
        capture_output=True, text=True, check=True).stdout.strip()
    return Path(binary) / "MyApp"


class App:
    """The quick-start executable running in sandbox mode in `directory`, with `PORT` set."""

    def __init__(self, binary: Path, directory: Path, *, prefix: str | None):
        self.port = harness.free_port()
        self.url = f"http://localhost:{self.port}"
        lines = ["server:", f"  public_url: {self.url}"]
        if prefix is not None:
            lines.append(f"  path_prefix: {prefix}")
        lines += ["providers:", "  google:", "    type: google", "  apple:", "    type: apple", ""]
        (directory / "providers.yaml").write_text("\n".join(lines))
        env = {key: value for key, value in os.environ.items() if key not in harness.CREDENTIAL_VARIABLES}
        env.update({"PORT": str(self.port), "AUTHFLOW_SANDBOX": "1"})
        # The app logs on standard error only, its listening line included.
        self.process = subprocess.Popen([str(binary)], cwd=directory, env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        self.log: list[str] = []
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        deadline = time.monotonic() + harness.STARTUP_TIMEOUT
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError("the quick start did not print its listening line\n" + self.stderr())
            if READY.match(line):
                return

    def _read(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.log.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def stderr(self) -> str:
        return "\n".join(self.log)[-3000:]

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=harness.STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        if self.process.stderr is not None:
            time.sleep(0.2)  # the reader takes the last lines
        return self.process.returncode


def sign_in_through_the_sandbox(binary: Path, directory: Path, prefix: str | None) -> None:
    routes = prefix or "/auth"
    app = App(binary, directory, prefix=prefix)
    try:
        start = harness.direct.get(f"{app.url}{routes}/google/login?return_to=/", allow_redirects=False,
                                   timeout=harness.HTTP_TIMEOUT)
        assert start.status_code == 302, (start.status_code, start.text[:300])
        parts = urlsplit(start.headers["Location"])
        sandbox_url = f"{parts.scheme}://{parts.netloc}"
        assert parts.path.startswith("/google/"), start.headers["Location"]

        browser = harness.Browser(app.url, sandbox_url, name="quickstart", prefix=routes)
        home = browser.get("/", initiator=None)
        assert home.status_code == 200 and "Signed out." in home.text, home.text[:500]
        assert f'href="{routes}/google/login?return_to=/"' in home.text, home.text[:500]

        for provider, name in (("google", "Ada Quickstart"), ("apple", "Grace Quickstart")):
            identity = harness.Identity.fresh(provider, name=name)
            session = browser.signed_in(provider, identity, return_to="/")
            assert session["provider"] == provider and session["subject"] == identity.subject, session
            page = browser.get("/", initiator=app.url)
            assert page.status_code == 200, (page.status_code, page.text[:500])
            assert f'<p id="user">Signed in as {name} with {provider}</p>' in page.text, page.text[:500]
            assert browser.logout().status_code in (204, 303), "logout"
            assert "Signed out." in browser.get("/", initiator=app.url).text

        if prefix is not None:
            # Nothing of AuthFlow answers under /auth any more: the path is the app's, which has no such page.
            moved = browser.get("/auth/session", initiator=app.url, navigation=False)
            assert moved.status_code == 404, (moved.status_code, moved.text[:300])
    finally:
        code = app.stop()
    assert code == 0, f"expected a clean exit on SIGTERM, found {code}\n{app.stderr()}"
    log = "\n".join(app.log)
    assert re.search(r"^authflow: info request .*route=/auth/\{provider\}/callback", log, re.M), log


@pytest.mark.timeout(BUILD_TIMEOUT + 300)
def test_the_readme_quick_start_builds_from_a_clean_clone_and_signs_in_through_the_sandbox(quickstart, tmp_path):
    sign_in_through_the_sandbox(quickstart, tmp_path, prefix=None)


@pytest.mark.timeout(BUILD_TIMEOUT + 300)
def test_the_same_app_serves_its_sign_in_under_server_path_prefix(quickstart, tmp_path):
    sign_in_through_the_sandbox(quickstart, tmp_path, prefix="/login")
