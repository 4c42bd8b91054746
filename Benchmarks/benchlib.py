"""Shared pieces of the benchmark runners: processes pinned to cores, the standalone sandbox, the
`authflow serve` configuration, a scripted browser that signs in, wrk and /proc CPU accounting.

Everything listens on 127.0.0.1 only. Every wait is bounded.
"""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import requests
import yaml

BENCH_DIR = Path(__file__).resolve().parent
# Where results go: Benchmarks/results, or AUTHFLOW_BENCH_RESULTS (the smoke step's scratch directory, so a
# run with tiny settings never overwrites the recorded figures).
RESULTS_DIR = Path(os.environ.get("AUTHFLOW_BENCH_RESULTS") or BENCH_DIR / "results")
SERVER_CORE = os.environ.get("AUTHFLOW_BENCH_CORE", "0")
CLIENT_CORE = os.environ.get("AUTHFLOW_BENCH_CLIENT_CORE", "1")
# A fixed, public benchmark secret (never used outside these throw-away processes).
BENCH_SECRET = "benchmark-secret-0123456789abcdef0123456789abcdef"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def pinned(core: str, command: list[str]) -> list[str]:
    return (["taskset", "-c", core] if shutil.which("taskset") else []) + command


def pin_driver() -> None:
    """Moves this process (the driver: scripted browsers, asyncio clients) to the client core, so it never
    shares the server core; children started pinned elsewhere keep their own core."""
    core = int(CLIENT_CORE)
    if hasattr(os, "sched_setaffinity") and core in os.sched_getaffinity(0):
        os.sched_setaffinity(0, {core})
    elif hasattr(os, "sched_getaffinity"):
        log(f"the driver cannot move to core {core} (allowed: {sorted(os.sched_getaffinity(0))}); it stays unpinned")


def driver_cores() -> str:
    """The cores this process (the driver) may run on, as the runners print them."""
    return ",".join(map(str, sorted(os.sched_getaffinity(0)))) if hasattr(os, "sched_getaffinity") else "any"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def machine_load() -> str:
    with open("/proc/loadavg") as f:
        return f"{f.read().split()[0]} on {os.cpu_count()} cores"


def output_tail(process: subprocess.Popen, lines: int = 20) -> str:
    """The last lines a child started by `Processes.start` wrote (its log file), to explain an early exit."""
    path = getattr(process, "log_path", None)
    if path is None or not Path(path).exists():
        return ""
    tail = Path(path).read_text(errors="replace").splitlines()[-lines:]
    return ":\n" + "\n".join(tail) if tail else ""


def wait_http(url: str, process: subprocess.Popen | None = None, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the process for {url} exited with {process.returncode}{output_tail(process)}")
        try:
            requests.get(url, timeout=1, allow_redirects=False)
            return
        except requests.RequestException:
            time.sleep(0.1)
    raise RuntimeError(f"no answer from {url} after {limit:.0f}s")


class Processes:
    """Child processes stopped (SIGTERM, then SIGKILL after 10 s) when the block ends."""

    def __init__(self) -> None:
        self.children: list[subprocess.Popen] = []
        self.directory = Path(tempfile.mkdtemp(prefix="authflow-bench-"))

    def __enter__(self) -> "Processes":
        return self

    def __exit__(self, *exc) -> None:
        for child in reversed(self.children):
            self.stop(child)
        shutil.rmtree(self.directory, ignore_errors=True)

    def start(self, command: list[str], name: str, core: str | None = SERVER_CORE, env: dict | None = None,
              cwd: Path | None = None) -> subprocess.Popen:
        out = open(self.directory / f"{name}.log", "w")
        full = pinned(core, command) if core is not None else command
        child = subprocess.Popen(full, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                 start_new_session=True)
        child.log_path = self.directory / f"{name}.log"  # read by output_tail
        self.children.append(child)
        return child

    def output(self, name: str) -> str:
        return (self.directory / f"{name}.log").read_text(errors="replace")

    @staticmethod
    def stop(child: subprocess.Popen) -> None:
        if child.poll() is not None:
            return
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(timeout=10)


@dataclass
class Sandbox:
    base_url: str
    google: dict  # the `google:` provider entry of the sandbox's providers.yaml fragment
    client_secret: str


def start_sandbox(processes: Processes, authflow: str, redirect_uris: list[str], core: str | None,
                  max_pending: int | None = None, extra_args: list[str] | None = None) -> Sandbox:
    """A standalone `authflow sandbox` on a free port, with a Google client accepting `redirect_uris`;
    `max_pending` raises how many authorization codes it remembers at once (10,000 by default, each kept
    for an hour after it is issued), for runs that sign in more often than that; `extra_args` are passed on
    (`--dpop`)."""
    credentials = processes.directory / "sandbox-credentials"
    port = free_port()
    command = [authflow, "sandbox", "--listen", f"127.0.0.1:{port}", "--credentials-dir", str(credentials)]
    for uri in redirect_uris:
        command += ["--redirect-uri", uri]
    if max_pending is not None:
        command += ["--max-pending", str(max_pending)]
    command += extra_args or []
    child = processes.start(command, "sandbox", core=core)
    fragment = credentials / "providers.yaml"
    deadline = time.monotonic() + 60
    while not fragment.exists() and time.monotonic() < deadline:
        if child.poll() is not None:
            raise RuntimeError(f"authflow sandbox exited: {processes.output('sandbox')}")
        time.sleep(0.1)
    base_url = f"http://127.0.0.1:{port}"
    wait_http(base_url + "/", child)
    google = yaml.safe_load(fragment.read_text())["providers"]["google"]
    secret = Path(google["client_secret_file"]).read_text().strip()
    return Sandbox(base_url=base_url, google=google, client_secret=secret)


def authflow_config(directory: Path, port: int, sandbox: Sandbox, store: str, rate_limits_off: bool,
                    server_extra: dict | None = None) -> Path:
    """providers.yaml for `authflow serve` on `port` with the sandbox's Google client and `store`
    (memory or sqlite); `server_extra` adds keys to its `server:` section."""
    server = {
        "listen": f"127.0.0.1:{port}", "public_url": f"http://127.0.0.1:{port}", "secret": BENCH_SECRET,
        "allowed_return_to": ["/"], "session_ttl": "8h",
    }
    if rate_limits_off:
        server["rate_limits"] = "off"
    server.update(server_extra or {})
    store_section = {"kind": store}
    if store == "sqlite":
        store_section["path"] = str(directory / f"authflow-{port}.sqlite")
    config = {"server": server, "store": store_section, "providers": {"google": sandbox.google}}
    path = directory / f"providers-{port}-{store}.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def config_accepted(authflow: str, path: Path) -> tuple[bool, str]:
    result = subprocess.run([authflow, "check", "--config", str(path)], capture_output=True, text=True,
                            timeout=60)
    return result.returncode == 0, result.stdout + result.stderr


def start_authflow(processes: Processes, authflow: str, sandbox: Sandbox, store: str, name: str,
                   port: int | None = None, server_extra: dict | None = None) -> tuple[subprocess.Popen, str]:
    """`authflow serve` pinned to the server core; `server.rate_limits: off` when this build knows the key."""
    port = port or free_port()
    path = authflow_config(processes.directory, port, sandbox, store, rate_limits_off=True, server_extra=server_extra)
    accepted, message = config_accepted(authflow, path)
    if not accepted:
        if "rate_limits" not in message:
            raise RuntimeError(f"authflow check refused the benchmark configuration: {message}")
        path = authflow_config(processes.directory, port, sandbox, store, rate_limits_off=False,
                               server_extra=server_extra)
    child = processes.start([authflow, "serve", "--config", str(path)], name)
    url = f"http://127.0.0.1:{port}"
    wait_http(url + "/healthz", child)
    return child, url


class Browser:
    """One driver client: a cookie jar and the hops of a Google sign-in through the sandbox.

    Its `requests.Session` keeps a keep-alive connection to each host it talked to. A browser kept for later
    (to log out) must `hang_up()`: the servers allow 256 open connections per client address
    (`server.limits.max_connections_per_client`, and the sandbox's listener the same), and a few hundred
    idle browsers from 127.0.0.1 would fill that, after which new connections are closed at once.
    """

    def __init__(self, sandbox: Sandbox):
        self.sandbox = sandbox
        self.session = requests.Session()
        self.session.trust_env = False  # loopback only, never a proxy

    def hang_up(self) -> None:
        """Closes the pooled connections and keeps the cookies; the next request opens a new connection."""
        self.session.close()

    def sign_in(self, login_url: str, subject: str) -> requests.Response:
        """login redirect → consent page → consent → callback; returns the app's answer to the callback."""
        start = self.session.get(login_url, allow_redirects=False, timeout=30)
        location = start.headers.get("Location", "")
        if start.status_code not in (302, 303) or not location.startswith(self.sandbox.base_url):
            raise RuntimeError(f"login: expected a redirect to the sandbox, found {start.status_code} {location!r}")
        page = self.session.get(location, allow_redirects=False, timeout=30)
        action = re.search(r'<form method="post" action="([^"]+)"', page.text)
        ticket = re.search(r'name="ticket" value="([^"]+)"', page.text)
        if page.status_code != 200 or not action or not ticket:
            raise RuntimeError(f"consent page: expected a form with a ticket, found {page.status_code}")
        fields = [("ticket", html.unescape(ticket.group(1))), ("identity", "custom"), ("subject", subject),
                  ("email", f"bench-{subject}@example.com"), ("email_verified", "true"),
                  ("name", "Bench User"), ("decision", "allow")]
        answer = self.session.post(html.unescape(action.group(1)), data=fields, allow_redirects=False,
                                   headers={"Origin": self.sandbox.base_url}, timeout=30)
        callback = answer.headers.get("Location", "")
        if answer.status_code not in (302, 303) or not callback:
            raise RuntimeError(f"consent: expected a redirect to the app, found {answer.status_code}")
        result = self.session.get(callback, allow_redirects=False, timeout=30,
                                  headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"})
        if result.status_code not in (302, 303):
            raise RuntimeError(f"callback: expected a redirect, found {result.status_code}: {result.text[:300]!r}")
        return result


def cpu_times(pids: list[int]) -> tuple[float, float]:
    """(utime, stime) of the processes in seconds (their reaped children are not counted), from /proc/PID/stat."""
    ticks = os.sysconf("SC_CLK_TCK")
    user = system = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        user += int(fields[11])  # utime (field 14 of stat)
        system += int(fields[12])  # stime (field 15)
    return user / ticks, system / ticks


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of the processes (and their reaped children are not counted), from /proc/PID/stat."""
    return sum(cpu_times(pids))


def core_ticks(core: str) -> tuple[int, int]:
    """(busy, total) clock ticks of one core since boot, from /proc/stat (idle and iowait are not busy)."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(f"cpu{core} "):
                fields = [int(value) for value in line.split()[1:]]
                return sum(fields) - fields[3] - fields[4], sum(fields)
    raise RuntimeError(f"/proc/stat: expected a line for cpu{core}, found none")


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it (gunicorn's master and worker)."""
    found = [pid]
    for child in Path(f"/proc/{pid}/task").glob("*/children"):
        for text in child.read_text().split():
            found += descendants(int(text))
    return found


NGINX_PREAMBLE = """
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log error;
events {{ worker_connections {worker_connections}; }}
"""

NGINX_HTTP_PREAMBLE = """
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    keepalive_requests 1000000;
"""


def start_nginx(processes: Processes, http_block: str, probe_url: str, core: str | None = SERVER_CORE,
                worker_connections: int = 1024) -> subprocess.Popen:
    """nginx with one worker, no access log and its temporary files in the run's directory, serving `http_block`
    (server and upstream blocks, already formatted); returns once `probe_url` answers."""
    directory = processes.directory
    conf = directory / "nginx.conf"
    conf.write_text(NGINX_PREAMBLE.format(dir=directory, worker_connections=worker_connections) + "http {\n"
                    + NGINX_HTTP_PREAMBLE.format(dir=directory) + http_block + "}\n")
    child = processes.start(["nginx", "-p", str(directory), "-c", str(conf)], "nginx", core=core)
    wait_http(probe_url, child)
    return child


def wrk(url: str, seconds: float, connections: int, headers: dict | None = None) -> dict:
    """One wrk run pinned to the client core: requests/s, mean and median latency (µs), non-2xx/3xx count and
    the number of requests answered."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency"]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    command.append(url)
    output = subprocess.run(pinned(CLIENT_CORE, command), capture_output=True, text=True,
                            timeout=seconds + 60).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    mean = re.search(r"Latency\s+([\d.]+)(us|ms|s)\b", output)
    median = re.search(r"\s50%\s+([\d.]+)(us|ms|s)\b", output)
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    done = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s)\b", output)
    if not rate:
        raise RuntimeError(f"wrk printed no rate for {url}: {output}")
    scale = {"us": 1, "ms": 1000, "s": 1_000_000}
    return {
        "rps": float(rate.group(1)),
        "mean_us": float(mean.group(1)) * scale[mean.group(2)] if mean else None,
        "median_us": float(median.group(1)) * scale[median.group(2)] if median else None,
        "non_2xx_3xx": int(errors.group(1)) if errors else 0,
        "requests": int(done.group(1)) if done else None,
    }


def write_result(name: str, result: dict) -> None:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
