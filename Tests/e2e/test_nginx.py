"""nginx in front of two `authflow serve` instances, with exactly `examples/nginx/authflow.conf`.

The module runs real nginx (not as a daemon, in a prefix of its own, on free ports) with the example file,
only the addresses, the certificate and the ports substituted; the TLS certificate is a self-signed one made
here for `localhost`. Behind it: instances A and B in normal mode on one PostgreSQL and one Redis (started
by this module, `store_servers.py`), one standalone `authflow sandbox` as every provider, and a small
application that answers with the identity headers nginx passed on. A browser (the harness's HTTP client)
asks for a protected page, is sent to the sign-in, consents at the sandbox, comes back through nginx and
gets the page, with the user nginx learned from `/auth/check`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
import requests

import authflow_harness as harness
from authflow_harness import Identity, SignIn
from shared_deployment import proxied_instances, self_signed_certificate, shared_services, substitute

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "nginx" / "authflow.conf"


class ApplicationHandler(BaseHTTPRequestHandler):
    """The protected application: answers with the identity headers it received, as JSON."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        body = json.dumps({"path": self.path, "user": self.headers.get("X-Auth-User"),
                           "email": self.headers.get("X-Auth-Email")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # quiet
        pass


class Nginx:
    """nginx -p PREFIX -c nginx.conf, in the foreground, with the example included in its http block."""

    def __init__(self, directory: Path, site: str):
        if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
            harness.missing("nginx is not installed (apt-get install nginx; scripts/lib/setup.sh does)")
        self.binary = shutil.which("nginx") or "/usr/sbin/nginx"
        self.prefix = directory
        for name in ("logs", "tmp"):
            (directory / name).mkdir(parents=True, exist_ok=True)
        (directory / "authflow.conf").write_text(site)
        user = "user root;\n" if os.geteuid() == 0 else ""  # the workers read the prefix's files
        (directory / "nginx.conf").write_text(
            f"{user}daemon off;\nmaster_process on;\nworker_processes 1;\npid {directory}/nginx.pid;\n"
            f"error_log {directory}/logs/error.log info;\nevents {{ worker_connections 256; }}\n"
            "http {\n"
            f"    access_log {directory}/logs/access.log;\n"
            f"    client_body_temp_path {directory}/tmp/body;\n    proxy_temp_path {directory}/tmp/proxy;\n"
            f"    fastcgi_temp_path {directory}/tmp/fastcgi;\n    uwsgi_temp_path {directory}/tmp/uwsgi;\n"
            f"    scgi_temp_path {directory}/tmp/scgi;\n"
            f"    include {directory}/authflow.conf;\n"
            "}\n")
        self.process: subprocess.Popen | None = None

    def command(self, *extra: str) -> list[str]:
        return [self.binary, "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf"),
                "-e", str(self.prefix / "logs" / "error.log"), *extra]

    def start(self, port: int, certificate: Path) -> None:
        check = subprocess.run(self.command("-t"), capture_output=True, text=True, timeout=60)
        assert check.returncode == 0, f"nginx -t: {check.stderr}"
        self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + harness.STARTUP_TIMEOUT
        while True:
            try:
                harness.direct.get(f"https://localhost:{port}/", verify=str(certificate), timeout=2,
                                   allow_redirects=False)
                return
            except requests.RequestException as error:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"nginx did not start ({error}):\n" + self.log()) from error
                time.sleep(0.1)

    def log(self) -> str:
        path = self.prefix / "logs" / "error.log"
        return path.read_text()[-3000:] if path.exists() else ""

    def access_log(self) -> str:
        path = self.prefix / "logs" / "access.log"
        return path.read_text() if path.exists() else ""

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        self.process = None


@pytest.fixture(scope="module")
def site(module_servers, tmp_path_factory):
    work = tmp_path_factory.mktemp("nginx")
    https_port, http_port = harness.free_port(), harness.free_port()
    public_url = f"https://localhost:{https_port}"
    nginx = application = None
    with shared_services(work, public_url) as services:
        sandbox_url = services.sandbox_url
        try:
            a, b = proxied_instances(module_servers, services, work, public_url)
            application = ThreadingHTTPServer(("127.0.0.1", 0), ApplicationHandler)
            threading.Thread(target=application.serve_forever, daemon=True).start()

            certificate, key = self_signed_certificate(work)
            text = substitute(EXAMPLE.read_text(), [
                ("10.0.0.11:8080", urlsplit(a.listen_url).netloc),
                ("10.0.0.12:8080", urlsplit(b.listen_url).netloc),
                ("10.0.0.21:3000", f"127.0.0.1:{application.server_address[1]}"),
                ("listen 80;", f"listen 127.0.0.1:{http_port};"),
                ("listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;"),
                ("server_name app.example.com;", "server_name localhost;"),
                ("/etc/ssl/app.example.com.pem", str(certificate)),
                ("/etc/ssl/app.example.com.key", str(key)),
            ], "examples/nginx/authflow.conf")
            nginx = Nginx(work / "nginx", text)
            nginx.start(https_port, certificate)
            yield {"public_url": public_url, "sandbox_url": sandbox_url, "certificate": certificate, "nginx": nginx,
                   "instances": (a, b), "postgres": services.postgres}
            module_servers.stop_all()
        finally:
            if nginx is not None:
                nginx.stop()
            if application is not None:
                application.shutdown()
                application.server_close()


def browser_for(site, name: str) -> harness.Browser:
    browser = harness.Browser(site["public_url"], site["sandbox_url"], name=name)
    browser.session.verify = str(site["certificate"])  # nginx's self-signed certificate, and only it
    return browser


def test_signs_in_through_nginx_to_the_protected_page(site):
    browser = browser_for(site, "nginx")
    identity = Identity.fresh("google", name="Katherine Johnson")

    # Not signed in: the page is not served; nginx sends the browser to the sign-in, to come back here.
    page = browser.get("/reports/2026?view=all", initiator=None)
    assert page.status_code == 302, f"{page.status_code} {page.text[:300]!r}"
    login = urljoin(page.url, page.headers["Location"])
    assert login == site["public_url"] + "/auth/google/login?return_to=/reports/2026", login

    start = browser.get(login, initiator=None)
    assert start.status_code == 302 and start.headers["Location"].startswith(site["sandbox_url"] + "/"), \
        f"{start.status_code} {start.headers.get('Location')!r} {start.text[:300]!r}"
    assert any(header.startswith("__Host-authflow_flow_") for header in harness.set_cookie_headers(start)), \
        "over https the flow cookie is a __Host- cookie"
    flow = SignIn(provider="google", start=start, authorize_url=start.headers["Location"])
    browser.consent(flow, identity)
    result = browser.deliver(browser.callback_from(flow), flow=flow)
    harness.expect_redirect(result, "/reports/2026", context="google callback through nginx")

    session = browser.session_info()
    assert session.status_code == 200, f"{session.status_code} {session.text[:300]!r}"
    user = session.json()["user_id"]

    # Signed in: nginx asks /auth/check and hands the application the user it answered.
    page = browser.get("/reports/2026", initiator=site["public_url"])
    assert page.status_code == 200, f"{page.status_code} {page.text[:300]!r}"
    assert page.json() == {"path": "/reports/2026", "user": user, "email": identity.email}

    # Identity headers come from the check only: a client's own X-Auth-User never reaches the application.
    forged = browser.get("/reports/2026", initiator=site["public_url"],
                         headers={"X-Auth-User": "someone-else", "X-Auth-Email": "boss@example.com"})
    assert forged.status_code == 200 and forged.json()["user"] == user
    assert forged.json()["email"] == identity.email

    # The sign-in is in the shared PostgreSQL, whichever instance handled it.
    rows = site["postgres"].query("SELECT user_id FROM identities WHERE provider = 'google' AND subject = :'p1'",
                                  identity.subject)
    assert rows == [[user]]

    # After logout, nginx refuses the page again.
    assert browser.logout().status_code in (204, 302)
    deadline = time.monotonic() + 10  # the other instance may answer from its 1 s session cache
    while True:
        again = browser.get("/reports/2026", initiator=site["public_url"])
        if again.status_code == 302 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert again.status_code == 302 and "/auth/google/login" in again.headers["Location"]


def test_a_stranger_with_forged_identity_headers_is_sent_to_sign_in(site):
    browser = browser_for(site, "stranger")
    page = browser.get("/", initiator=None, headers={"X-Auth-User": "u1", "Cookie": "authflow_session=forged"})
    assert page.status_code == 302
    assert urlsplit(page.headers["Location"]).path == "/auth/google/login"


def test_both_instances_serve_through_the_upstream(site):
    # nginx spreads requests over the upstream (round robin): sign-in starts reach both instances.
    for index in range(6):
        start = browser_for(site, f"rr-{index}").get("/auth/google/login?return_to=/", initiator=site["public_url"])
        assert start.status_code == 302, start.text[:300]
    for instance in site["instances"]:
        log = instance.stderr_path.read_text(errors="replace")
        assert "/auth/{provider}/login" in log, f"{instance.label} served no sign-in start:\n{log[-1500:]}"
