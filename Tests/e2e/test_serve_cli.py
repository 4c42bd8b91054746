"""`authflow serve` and `authflow demo` as processes: the listening lines of the contract, graceful stop on
SIGTERM/SIGINT with exit 0, and exit 1 with a message on stderr for a bad configuration or a taken port."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import socket
import subprocess

import pytest

import authflow_harness as harness


def run_briefly(arguments: list[str], cwd, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in harness.CREDENTIAL_VARIABLES}
    return subprocess.run([harness.authflow_binary(), *arguments], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)


def test_serve_sandbox_prints_both_listeners(servers):
    config, port = servers.config()
    app = servers.start(config)
    assert app.listen_url == f"http://127.0.0.1:{port}"
    assert app.app_url == f"http://localhost:{port}"
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", app.sandbox_url), app.sandbox_url
    assert app.sandbox_url != app.listen_url
    assert harness.direct.get(app.app_url + "/healthz", timeout=harness.HTTP_TIMEOUT).status_code == 200
    index = harness.direct.get(app.sandbox_url + "/", timeout=harness.HTTP_TIMEOUT)
    assert index.status_code == 200 and "providers" in index.json()


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_serve_stops_gracefully_with_exit_0(servers, stop_signal):
    app = servers.launch()
    browser = app.browser()
    browser.signed_in("google", harness.Identity.fresh("google"))
    app.process.send_signal(stop_signal)
    try:
        code = app.process.wait(timeout=harness.STOP_TIMEOUT)
    finally:
        app.stop()
    assert code == 0, app.diagnostics()


def test_serve_without_sandbox_uses_the_real_endpoints(servers, tmp_path):
    port = harness.free_port()
    config = tmp_path / "providers.yaml"
    config.write_text(
        "server:\n"
        f"  listen: 127.0.0.1:{port}\n"
        f"  public_url: http://localhost:{port}\n"
        f"  secret: {'s' * 40}\n"
        "store:\n  kind: memory\n"
        "providers:\n"
        "  google:\n    type: google\n    client_id: 123.apps.googleusercontent.com\n"
        "    client_secret: not-a-real-secret\n")
    app = servers.start(config, sandbox=False, label="serve-real")
    assert app.sandbox_url is None
    assert not any(line.startswith("authflow: sandbox") for line in app.stdout_lines)
    response = app.browser().begin("google")
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith("https://accounts.google.com/"), location
    assert f"redirect_uri=http%3A%2F%2Flocalhost%3A{port}%2Fauth%2Fgoogle%2Fcallback" in location, location
    assert "code_challenge_method=S256" in location and "nonce=" in location


def test_bad_configuration_exits_1_with_the_position(tmp_path):
    port = harness.free_port()
    config = harness.write_config(tmp_path, port=port, server_extra="  lisen_to: 127.0.0.1:1")
    result = run_briefly(["serve", "--sandbox", "--config", str(config)], tmp_path)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "providers.yaml" in result.stderr and "lisen_to" in result.stderr, result.stderr
    assert "listening" not in result.stdout


def test_missing_configuration_file_exits_1(tmp_path):
    result = run_briefly(["serve", "--config", "nope.yaml"], tmp_path)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "nope.yaml" in result.stderr


def test_port_in_use_exits_1(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        config = harness.write_config(tmp_path, port=port)
        result = run_briefly(["serve", "--sandbox", "--config", str(config)], tmp_path)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stderr.strip(), "no message on stderr"
    assert "listening at" not in result.stdout


def test_usage_error_exits_2(tmp_path):
    result = run_briefly(["serve", "--no-such-option"], tmp_path)
    assert result.returncode == 2, (result.stdout, result.stderr)


def demo_config(directory, port: int):
    """The root providers.yaml, listening on `port` and keeping its database in `directory`."""
    text = (harness.REPO_ROOT / "providers.yaml").read_text()
    assert "127.0.0.1:8080" in text and "http://localhost:8080" in text
    text = text.replace("127.0.0.1:8080", f"127.0.0.1:{port}").replace("http://localhost:8080",
                                                                          f"http://localhost:{port}")
    path = directory / "providers.yaml"
    path.write_text(text)
    return path


def test_demo_serves_the_home_page_of_the_root_configuration(tmp_path):
    port = harness.free_port()
    demo_config(tmp_path, port)
    demo = harness.ServerProcess(["demo"], workdir=tmp_path, sandbox=True, label="demo").start()
    try:
        assert demo.app_url == f"http://localhost:{port}"
        page = harness.direct.get(demo.app_url + "/", timeout=harness.HTTP_TIMEOUT)
        assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
        parser = harness._FormParser()
        parser.feed(page.text)
        for name in harness.PROVIDERS:
            link = parser.ids.get(f"signin-{name}")
            assert link is not None, f"no #signin-{name} on the demo page"
            assert link["tag"] == "a" and link.get("href") == f"/auth/{name}/login?return_to=/", link
            assert "signin" in link.get("class", "").split()
        browser = demo.browser()
        session = browser.signed_in("x", harness.Identity.fresh("x"))
        assert session["provider"] == "x"
    finally:
        assert demo.stop() == 0, demo.diagnostics()


def test_demo_signs_in_a_native_app_offline(tmp_path):
    """The root configuration's `native_clients` make the demo's native routes work offline: a nonce from the
    app, an identity token and code from the sandbox standing in for Apple's SDK, a bearer session."""
    port = harness.free_port()
    demo_config(tmp_path, port)
    demo = harness.ServerProcess(["demo"], workdir=tmp_path, sandbox=True, label="demo").start()
    try:
        issued = harness.direct.post(demo.app_url + "/auth/apple/native/nonce", timeout=harness.HTTP_TIMEOUT)
        assert issued.status_code == 200, issued.text
        nonce = issued.json()["nonce"]
        hashed = hashlib.sha256(nonce.encode()).hexdigest()
        minted = harness.direct.post(demo.sandbox_url + "/_sandbox/apple/native", json={
            "identity": {"subject": "001.native.001", "email": "native@example.com",
                         "given_name": "Ann", "family_name": "Lee"},
            "audience": "com.example.ios", "nonce": hashed}, timeout=harness.HTTP_TIMEOUT)
        assert minted.status_code == 200, minted.text
        signed_in = harness.direct.post(demo.app_url + "/auth/apple/native", json={
            "id_token": minted.json()["id_token"], "nonce": nonce, "code": minted.json()["code"],
            "user": {"name": {"firstName": "Ann", "lastName": "Lee"}}}, timeout=harness.HTTP_TIMEOUT)
        assert signed_in.status_code == 200, signed_in.text
        body = signed_in.json()
        assert body["token_type"] == "Bearer" and body["provider"] == "apple" and "set-cookie" not in signed_in.headers
        session = harness.direct.get(demo.app_url + "/auth/session", timeout=harness.HTTP_TIMEOUT,
                                     headers={"Authorization": "Bearer " + body["session_token"]})
        assert session.status_code == 200 and session.json()["subject"] == "001.native.001", session.text
        # The nonce was spent: the same token and nonce again are refused.
        again = harness.direct.post(demo.app_url + "/auth/apple/native", json={
            "id_token": minted.json()["id_token"], "nonce": nonce}, timeout=harness.HTTP_TIMEOUT)
        assert again.status_code == 409 and again.json()["error"] == "nonce_reused", again.text
    finally:
        assert demo.stop() == 0, demo.diagnostics()
