"""Harness for AuthFlow's black-box end-to-end tests.

Starts `authflow serve [--sandbox]` processes on free loopback ports with temporary configurations,
and drives them with `Browser`, an HTTP client that behaves like a browser where it matters for
sign-in security: it sends `Origin` and `Sec-Fetch-Site` the way Chromium does, and it withholds
cookies on cross-site requests according to their `SameSite` attribute (a missing attribute counts as
`Lax`, as in Chromium). Redirects are never followed automatically; every hop is explicit.

Everything here has a timeout. Processes are stopped by the fixtures that start them, and a last
safety net kills any that are still running when the interpreter exits.
"""

from __future__ import annotations

import atexit
import base64
import collections
import copy
import http.cookiejar
import http.server
import json
import os
import queue
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import requests

REPO_ROOT = Path(__file__).resolve().parents[2]

#: Seconds any single HTTP request may take.
HTTP_TIMEOUT = 15
#: Seconds a server may take to print its listening lines.
STARTUP_TIMEOUT = 60
#: Seconds a server may take to stop after SIGTERM before it is killed.
STOP_TIMEOUT = 15

#: The keys `/auth/session` answers with (docs/server.md, "Routes"), no more, no fewer.
SESSION_KEYS = {"user_id", "provider", "subject", "email", "email_verified", "name", "expires_at"}

PROVIDERS = ("apple", "google", "facebook", "x")

APP_LINE = re.compile(r"^authflow: app listening at (http://\S+) \(public URL (\S+)\)\s*$")
SANDBOX_LINE = re.compile(r"^authflow: sandbox listening at (http://\S+)\s*$")


def ready_line(line: str) -> dict | None:
    """A ready line of `serve` as {"name", "url", "public_url"?}: the text form, or with `log_format: json` the
    JSON object (`{"event": "app listening", "url": ..., "public_url": ...}`); None for any other line."""
    if line.startswith("{"):
        try:
            value = json.loads(line)
        except ValueError:
            return None
        event = value.get("event", "") if isinstance(value, dict) else ""
        if not event.endswith(" listening") or not isinstance(value.get("url"), str):
            return None
        return {"name": event.removesuffix(" listening"), "url": value["url"], "public_url": value.get("public_url")}
    if match := APP_LINE.match(line):
        return {"name": "app", "url": match.group(1), "public_url": match.group(2)}
    if match := SANDBOX_LINE.match(line):
        return {"name": "sandbox", "url": match.group(1)}
    if match := re.match(r"^authflow: metrics listening at (http://\S+)\s*$", line):
        return {"name": "metrics", "url": match.group(1)}
    return None

def missing(reason: str):
    """A missing test dependency: a failure when AUTHFLOW_REQUIRE_PEERS=1 (CI), else a skip with the reason."""
    import pytest
    if os.environ.get("AUTHFLOW_REQUIRE_PEERS") == "1":
        pytest.fail(reason + " (AUTHFLOW_REQUIRE_PEERS=1: this is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


#: Plain HTTP calls (admin endpoints, notifications): never through a proxy from the environment.
direct = requests.Session()
direct.trust_env = False

# ---------------------------------------------------------------------------------------------
# The binary and free ports
# ---------------------------------------------------------------------------------------------

_binary_lock = threading.Lock()
_binary_path: str | None = None


def authflow_binary() -> str:
    """The `authflow` executable: `$AUTHFLOW_BIN`, else `$(swift build --show-bin-path)/authflow`."""
    global _binary_path
    with _binary_lock:
        if _binary_path is None:
            configured = os.environ.get("AUTHFLOW_BIN")
            if configured:
                _binary_path = configured
            else:
                result = subprocess.run(
                    ["swift", "build", "--show-bin-path"], cwd=REPO_ROOT, capture_output=True, text=True,
                    timeout=300, check=False)
                if result.returncode != 0:
                    raise RuntimeError(
                        "cannot locate the authflow binary: `swift build --show-bin-path` failed: "
                        + result.stderr.strip()[-500:])
                _binary_path = os.path.join(result.stdout.strip(), "authflow")
        return _binary_path


_handed_out: set[int] = set()
_handed_out_lock = threading.Lock()


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago, chosen below the kernel's ephemeral range
    (32768-60999): the server under test binds port 0 for its sandbox listener, and the kernel hands
    such ports out of the ephemeral range, so the sandbox can never take the port meant for the app.
    A port is handed out once per run: a fixture that picks its ports before it starts what binds them
    (nginx's, then the instances behind it) must not be given one of them again in between."""
    for _ in range(200):
        candidate = random.randrange(20000, 32000)
        with _handed_out_lock:
            if candidate in _handed_out:
                continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", candidate))
            except OSError:
                continue
        with _handed_out_lock:
            if candidate in _handed_out:
                continue
            _handed_out.add(candidate)
        return candidate
    raise RuntimeError("no free port found in 20000-31999")


# ---------------------------------------------------------------------------------------------
# Configuration files
# ---------------------------------------------------------------------------------------------

PROVIDER_BLOCKS = {
    "apple": """\
  apple:
    type: apple
    client_id: com.example.web
    team_id: ${APPLE_TEAM_ID}
    key_id: ${APPLE_KEY_ID}
    private_key_file: ${APPLE_PRIVATE_KEY_FILE}
    scopes: [name, email]
""",
    "google": """\
  google:
    type: google
    client_id: 123.apps.googleusercontent.com
    client_secret: ${GOOGLE_CLIENT_SECRET}
    capabilities: { oidc: true, pkce: true }
""",
    "facebook": """\
  facebook:
    type: facebook
    client_id: "1234567890"
    client_secret: ${FACEBOOK_CLIENT_SECRET}
    capabilities: { pkce: true }
""",
    "x": """\
  x:
    type: x
    client_id: abc
    client_secret: ${X_CLIENT_SECRET}
    scopes: [users.read, tweet.read, offline.access]
""",
}

#: Environment variables the configuration templates name; removed from the servers' environment so
#: that sandbox mode generates every credential.
CREDENTIAL_VARIABLES = (
    "APPLE_TEAM_ID", "APPLE_KEY_ID", "APPLE_PRIVATE_KEY_FILE", "GOOGLE_CLIENT_SECRET",
    "FACEBOOK_CLIENT_SECRET", "X_CLIENT_SECRET", "AUTHFLOW_SECRET",
)


def write_config(directory: Path, *, port: int, providers=PROVIDERS, store_kind: str = "sqlite",
                 secret: str | None = None, server_extra: str = "", sandbox_port: int = 0,
                 extra_providers: str = "", name: str = "providers.yaml") -> Path:
    """Writes a providers.yaml for a test server on `port` (public URL `http://localhost:port`)."""
    directory.mkdir(parents=True, exist_ok=True)
    secret = secret or secrets.token_hex(32)
    lines = [
        "server:",
        f"  listen: 127.0.0.1:{port}",
        f"  public_url: http://localhost:{port}",
        f"  secret: {secret}",
        "  allowed_return_to: [/]",
        "  session_ttl: 1h",
    ]
    lines += [line for line in server_extra.splitlines() if line.strip()]
    lines += ["sandbox:", f"  listen: 127.0.0.1:{sandbox_port}", "store:", f"  kind: {store_kind}"]
    if store_kind == "sqlite":
        lines.append(f"  path: {directory / 'authflow.sqlite'}")
    lines.append("providers:")
    text = "\n".join(lines) + "\n" + "".join(PROVIDER_BLOCKS[p] for p in providers) + extra_providers
    path = directory / name
    path.write_text(text)
    return path


# ---------------------------------------------------------------------------------------------
# Server processes
# ---------------------------------------------------------------------------------------------

_live_processes: set[subprocess.Popen] = set()
#: Every ServerProcess started in this run, for failure reports.
started_servers: list = []
_live_lock = threading.Lock()


def _kill_leftovers() -> None:
    with _live_lock:
        leftovers = list(_live_processes)
    for process in leftovers:
        if process.poll() is None:
            process.kill()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


atexit.register(_kill_leftovers)


class ServerError(AssertionError):
    """A server did not start, stop or answer as the contract says."""


class ServerProcess:
    """One `authflow serve` (or `demo`) process; `start()` waits for its listening lines."""

    def __init__(self, arguments: list[str], *, workdir: Path, sandbox: bool, env: dict | None = None,
                 label: str = "authflow"):
        self.arguments = arguments
        self.workdir = workdir
        self.sandbox = sandbox
        self.label = label
        self.env = dict(os.environ if env is None else env)
        for name in CREDENTIAL_VARIABLES:
            self.env.pop(name, None)
        self.process: subprocess.Popen | None = None
        self.stdout_lines: list[str] = []
        self._lines: queue.Queue = queue.Queue()
        self.stderr_path = workdir / f"{label}-{secrets.token_hex(3)}.stderr"
        self.listen_url: str | None = None
        self.app_url: str | None = None  # the public URL
        self.sandbox_url: str | None = None
        self.exit_code: int | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self, timeout: float = STARTUP_TIMEOUT) -> "ServerProcess":
        binary = authflow_binary()
        if not os.access(binary, os.X_OK):
            raise ServerError(f"the authflow binary {binary} does not exist or is not executable "
                              "(set AUTHFLOW_BIN or run `swift build`)")
        self.workdir.mkdir(parents=True, exist_ok=True)
        stderr = open(self.stderr_path, "wb")
        try:
            self.process = subprocess.Popen(
                [binary, *self.arguments], cwd=self.workdir, env=self.env, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=stderr, start_new_session=True)
        finally:
            stderr.close()
        with _live_lock:
            _live_processes.add(self.process)
            started_servers.append(self)
        threading.Thread(target=self._read_stdout, name=f"{self.label}-stdout", daemon=True).start()
        deadline = time.monotonic() + timeout
        while self.app_url is None or (self.sandbox and self.sandbox_url is None):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise ServerError(f"{self.label} printed no listening line within {timeout:.0f} s\n"
                                  + self.diagnostics())
            try:
                line = self._lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                if self.process.poll() is not None:
                    self.exit_code = self.process.returncode
                    raise ServerError(f"{self.label} exited with {self.exit_code} before listening\n"
                                      + self.diagnostics())
                continue
            if line is None:
                self.process.wait(timeout=STOP_TIMEOUT)
                self.exit_code = self.process.returncode
                raise ServerError(f"{self.label} closed its stdout before listening (exit {self.exit_code})\n"
                                  + self.diagnostics())
            ready = ready_line(line)
            if ready and ready["name"] == "app" and ready.get("public_url"):
                self.listen_url, self.app_url = ready["url"], ready["public_url"].rstrip("/")
            elif ready and ready["name"] == "sandbox":
                self.sandbox_url = ready["url"].rstrip("/")
        return self

    def _read_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for raw in self.process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.stdout_lines.append(line)
            self._lines.put(line)
        self._lines.put(None)

    def stop(self, timeout: float = STOP_TIMEOUT) -> int | None:
        """SIGTERM, then SIGKILL after `timeout`; returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        return self._reap()

    def kill(self) -> int | None:
        """SIGKILL at once (a crash, as far as the server can tell)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.kill()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        return self._reap()

    def _reap(self) -> int | None:
        assert self.process is not None
        self.exit_code = self.process.returncode
        with _live_lock:
            _live_processes.discard(self.process)
        if self.process.stdout is not None:
            try:
                self.process.stdout.close()
            except OSError:
                pass
        return self.exit_code

    def diagnostics(self) -> str:
        try:
            stderr = self.stderr_path.read_text(errors="replace")
        except OSError:
            stderr = ""
        return (f"command: {' '.join(self.arguments)}\n--- stdout (last lines)\n"
                + "\n".join(self.stdout_lines[-20:]) + "\n--- stderr (last 3000 characters)\n" + stderr[-3000:])

    # -- conveniences --------------------------------------------------------------------------

    def browser(self, name: str = "browser") -> "Browser":
        assert self.app_url is not None
        return Browser(self.app_url, self.sandbox_url, name=name)

    def revocations(self) -> list[dict]:
        """`GET {sandbox}/_sandbox/revocations` (loopback admin endpoint)."""
        response = direct.get(self.sandbox_url + "/_sandbox/revocations", timeout=HTTP_TIMEOUT)
        if response.status_code != 200:
            raise ServerError(f"GET /_sandbox/revocations answered {response.status_code}: {response.text[:300]}")
        body = response.json()
        if not isinstance(body, dict) or not isinstance(body.get("revocations"), list):
            raise ServerError(f"GET /_sandbox/revocations: expected {{\"revocations\": [...]}}, found {body!r:.300}")
        return body["revocations"]

    def new_revocations(self, before: list[dict], provider: str | None = None) -> list[dict]:
        """The revocations the sandbox saw since `before` (an earlier `revocations()`); the admin endpoint
        lists them grouped by provider, so entries are compared as a multiset, not by position."""
        remaining = collections.Counter(json.dumps(entry, sort_keys=True) for entry in before)
        fresh = []
        for entry in self.revocations():
            key = json.dumps(entry, sort_keys=True)
            if remaining[key] > 0:
                remaining[key] -= 1
            else:
                fresh.append(entry)
        return [entry for entry in fresh if provider is None or entry.get("provider") == provider]


def start_server(workdir: Path, config: Path, *, sandbox: bool = True, label: str = "serve",
                 extra_args: tuple[str, ...] = (), env_extra: dict | None = None) -> ServerProcess:
    arguments = ["serve", "--config", str(config), *extra_args]
    if sandbox:
        arguments.append("--sandbox")
    env = dict(os.environ)
    env.update(env_extra or {})
    return ServerProcess(arguments, workdir=workdir, sandbox=sandbox, label=label, env=env).start()


# ---------------------------------------------------------------------------------------------
# Moving a server's wall clock (Tests/e2e/clockshim)
# ---------------------------------------------------------------------------------------------

CLOCK_SHIM_SOURCE = Path(__file__).resolve().parent / "clockshim" / "clock_offset.c"


def build_clock_shim(directory: Path) -> Path:
    """Compiles the LD_PRELOAD clock shim with the system C compiler; raises RuntimeError if it cannot."""
    output = directory / "clock_offset.so"
    compilers = ["cc", "gcc", "clang"]
    swift = shutil.which("swift")
    if swift:  # the Swift toolchain ships its own clang next to `swift`
        compilers.append(os.path.join(os.path.dirname(os.path.realpath(swift)), "clang"))
    for compiler in compilers:
        try:
            result = subprocess.run(
                [compiler, "-shared", "-fPIC", "-O2", "-o", str(output), str(CLOCK_SHIM_SOURCE), "-ldl"],
                capture_output=True, text=True, timeout=120, check=False)
        except (FileNotFoundError, subprocess.TimeoutExpired):
            continue
        if result.returncode == 0:
            return output
    raise RuntimeError("no C compiler (cc, gcc or clang) could build " + str(CLOCK_SHIM_SOURCE))


class ServerClock:
    """The wall-clock offset of the servers started with `env()`; `advance()` moves it at once."""

    def __init__(self, shim: Path, directory: Path):
        self.shim = shim
        self.path = directory / f"clock-{secrets.token_hex(4)}.offset"
        self.offset = 0
        self._write()

    def env(self) -> dict:
        return {"LD_PRELOAD": str(self.shim), "AUTHFLOW_E2E_CLOCK_OFFSET_FILE": str(self.path)}

    def advance(self, seconds: int) -> None:
        self.offset += int(seconds)
        self._write()

    def _write(self) -> None:
        mode = "r+b" if self.path.exists() else "wb"
        with open(self.path, mode) as handle:
            handle.seek(0)
            handle.write(self.offset.to_bytes(8, "little", signed=True))
            handle.flush()
            os.fsync(handle.fileno())


# ---------------------------------------------------------------------------------------------
# HTML forms
# ---------------------------------------------------------------------------------------------


@dataclass
class Form:
    action: str
    method: str
    attributes: dict
    inputs: list[dict] = field(default_factory=list)
    buttons: list[dict] = field(default_factory=list)

    def fields(self) -> list[tuple[str, str]]:
        """What submitting the form without a button sends (hidden/text inputs and checked boxes)."""
        result = []
        for element in self.inputs:
            name = element.get("name")
            if not name:
                continue
            kind = (element.get("type") or "text").lower()
            if kind in ("checkbox", "radio") and "checked" not in element:
                continue
            if kind in ("submit", "button", "image", "reset", "file"):
                continue
            result.append((name, element.get("value") or ("on" if kind in ("checkbox", "radio") else "")))
        return result

    def field(self, name: str) -> str | None:
        for element in self.inputs:
            if element.get("name") == name:
                return element.get("value")
        return None


class _FormParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._current: Form | None = None
        self.ids: dict[str, dict] = {}
        self.meta_referrer: str | None = None

    def handle_starttag(self, tag, attrs):
        attributes = {name: (value if value is not None else "") for name, value in attrs}
        if tag == "meta" and attributes.get("name", "").lower() == "referrer":
            self.meta_referrer = attributes.get("content", "").strip().lower()
        if "id" in attributes:
            self.ids[attributes["id"]] = {"tag": tag, **attributes}
        if tag == "form":
            self._current = Form(action=attributes.get("action", ""),
                                 method=(attributes.get("method") or "get").lower(), attributes=attributes)
            self.forms.append(self._current)
        elif self._current is not None and tag in ("input", "select", "textarea"):
            self._current.inputs.append({"tag": tag, **attributes})
        elif self._current is not None and tag == "button":
            self._current.buttons.append(attributes)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "form":
            self._current = None


def parse_forms(html: str, base_url: str) -> list[Form]:
    parser = _FormParser()
    parser.feed(html)
    parser.close()
    for form in parser.forms:
        form.action = urljoin(base_url, form.action) if form.action else base_url
    return parser.forms


# ---------------------------------------------------------------------------------------------
# Sites, origins and cookies
# ---------------------------------------------------------------------------------------------


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port and parts.port != default else ""
    return f"{parts.scheme}://{host}{port}"


def site_of(url: str) -> tuple[str, str]:
    """Schemeful site. Loopback hosts have no registrable domain: each host name is its own site."""
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower()


def fetch_site(initiator: str | None, target: str) -> str:
    if initiator is None:
        return "none"
    if origin_of(initiator) == origin_of(target):
        return "same-origin"
    if site_of(initiator) == site_of(target):
        return "same-site"
    return "cross-site"


REFERRER_POLICIES = {
    "no-referrer", "no-referrer-when-downgrade", "same-origin", "origin", "strict-origin",
    "origin-when-cross-origin", "strict-origin-when-cross-origin", "unsafe-url",
}


def referrer_policy(page: requests.Response) -> str:
    """The document's referrer policy: the last known token of the Referrer-Policy header, overridden by a
    `<meta name="referrer">`; Chromium's default otherwise."""
    policy = "strict-origin-when-cross-origin"
    for token in page.headers.get("Referrer-Policy", "").split(","):
        if token.strip().lower() in REFERRER_POLICIES:
            policy = token.strip().lower()
    if "html" in page.headers.get("Content-Type", ""):
        parser = _FormParser()
        parser.feed(page.text)
        if parser.meta_referrer in REFERRER_POLICIES:
            policy = parser.meta_referrer
    return policy


def origin_header(page_url: str, policy: str, target: str) -> str:
    """The `Origin` a browser sends with a POST made by the page at `page_url` (Fetch, "append a request
    `Origin` header"): the page's origin, or `null` where its referrer policy withholds it."""
    origin = origin_of(page_url)
    if policy == "no-referrer":
        return "null"
    if policy == "same-origin" and origin_of(target) != origin:
        return "null"
    if policy in ("no-referrer-when-downgrade", "strict-origin", "strict-origin-when-cross-origin") \
            and urlsplit(page_url).scheme == "https" and urlsplit(target).scheme != "https":
        return "null"
    return origin


def cookie_same_site(cookie: http.cookiejar.Cookie) -> str:
    for key, value in cookie._rest.items():  # nonstandard attributes, as sent
        if key.lower() == "samesite":
            return (value or "").lower()
    return "lax"  # Chromium's default for a cookie without the attribute


def _is_loopback_host(host: str) -> bool:
    host = host.lower().rstrip(".")
    return host in ("localhost", "localhost.local", "[::1]", "::1") or host.startswith("127.")


class LoopbackSecurePolicy(http.cookiejar.DefaultCookiePolicy):
    """Chromium treats http://localhost and 127.0.0.1 as secure contexts, so `Secure` cookies set there
    are sent back over plain http; the standard library would withhold them."""

    def return_ok_secure(self, cookie, request):
        if cookie.secure and request.type != "https":
            return _is_loopback_host(urlsplit(request.get_full_url()).hostname or "")
        return True


def copy_cookie(cookie: http.cookiejar.Cookie, **changes) -> http.cookiejar.Cookie:
    clone = copy.copy(cookie)
    for name, value in changes.items():
        setattr(clone, name, value)
    return clone


def set_cookie_headers(response: requests.Response) -> list[str]:
    headers = response.raw.headers if response.raw is not None else None
    if headers is not None and hasattr(headers, "getlist"):
        return list(headers.getlist("Set-Cookie"))
    value = response.headers.get("Set-Cookie")
    return [value] if value else []


# ---------------------------------------------------------------------------------------------
# The browser emulation
# ---------------------------------------------------------------------------------------------


@dataclass
class Identity:
    """A typed identity for the sandbox consent page (`identity=custom`)."""
    subject: str
    email: str | None = None
    name: str | None = None
    email_verified: bool = True

    @staticmethod
    def fresh(provider: str, *, name: str = "Test User", email_verified: bool = True) -> "Identity":
        token = secrets.token_hex(6)
        subject = {
            "apple": f"001234.{secrets.token_hex(16)}.{1000 + secrets.randbelow(9000)}",
            "google": str(10**20 + secrets.randbelow(10**20)),
            "facebook": str(10**16 + secrets.randbelow(10**16)),
            "x": str(10**18 + secrets.randbelow(10**18)),
        }.get(provider, f"user-{token}")
        return Identity(subject=subject, email=f"{provider}-{token}@example.com", name=name,
                        email_verified=email_verified)

    def form_fields(self) -> list[tuple[str, str]]:
        fields = [("identity", "custom"), ("subject", self.subject)]
        if self.email is not None:
            fields.append(("email", self.email))
        if self.name is not None:
            fields.append(("name", self.name))
        if self.email_verified:
            fields.append(("email_verified", "true"))
        return fields


@dataclass
class Callback:
    """The request that carried the provider's answer back to the app."""
    method: str  # "GET" or "POST"
    url: str
    fields: list[tuple[str, str]] | None = None  # POST form fields
    page_url: str | None = None  # the provider page that sent the browser here
    page_policy: str = "strict-origin-when-cross-origin"  # that page's referrer policy

    @property
    def state(self) -> str | None:
        if self.method == "POST":
            return dict(self.fields or []).get("state")
        values = parse_qs(urlsplit(self.url).query).get("state")
        return values[0] if values else None


@dataclass
class SignIn:
    provider: str
    start: requests.Response
    authorize_url: str
    consent_page: requests.Response | None = None
    provider_answer: requests.Response | None = None
    callback: Callback | None = None
    result: requests.Response | None = None  # the app's final answer to the callback
    bounced: bool = False


class Browser:
    """An HTTP client with one cookie jar that sends the headers and cookies a browser would."""

    def __init__(self, app_url: str, sandbox_url: str | None, name: str = "browser", prefix: str = "/auth"):
        self.app = app_url.rstrip("/")
        self.prefix = prefix  # server.path_prefix: where the sign-in routes live
        self.sandbox = sandbox_url.rstrip("/") if sandbox_url else None
        self.name = name
        self.session = requests.Session()
        self.session.trust_env = False  # never a proxy from the environment: loopback only
        self.session.cookies.set_policy(LoopbackSecurePolicy())
        self.session.headers.update({"User-Agent": f"AuthFlow-e2e ({name})", "Accept": "*/*"})
        self.log: list[str] = []

    # -- raw requests --------------------------------------------------------------------------

    def request(self, method: str, url: str, *, initiator: str | None = None, data=None,
                headers: dict | None = None, navigation: bool = True, timeout: float = HTTP_TIMEOUT,
                send_cookies: bool = True) -> requests.Response:
        """One request as a browser sends it when the page at `initiator` (None: the address bar or a
        script of no page) causes it. Cross-site requests carry only the cookies SameSite lets through."""
        site = fetch_site(initiator, url)
        final_headers = dict(self.session.headers)
        final_headers["Sec-Fetch-Site"] = site
        final_headers["Sec-Fetch-Mode"] = "navigate" if navigation else "cors"
        if method.upper() not in ("GET", "HEAD") and initiator is not None:
            final_headers["Origin"] = origin_of(initiator)
        if headers:
            final_headers.update(headers)
        final_headers = {k: v for k, v in final_headers.items() if v is not None}  # None: header not sent
        jar = requests.cookies.RequestsCookieJar()
        jar.set_policy(LoopbackSecurePolicy())
        if send_cookies:
            safe_method = method.upper() in ("GET", "HEAD")
            for cookie in self.session.cookies:
                same_site = cookie_same_site(cookie)
                if site == "cross-site":
                    if same_site == "strict":
                        continue
                    if same_site == "lax" and not (safe_method and navigation):
                        continue
                jar.set_cookie(cookie)
        prepared = requests.Request(method.upper(), url.split("#", 1)[0], headers=final_headers, data=data,
                                    cookies=jar).prepare()
        response = self.session.send(prepared, allow_redirects=False, timeout=timeout)
        self.log.append(f"{method.upper()} {url.split('?', 1)[0]} [{site}] -> {response.status_code}")
        return response

    def get(self, path_or_url: str, **kwargs) -> requests.Response:
        return self.request("GET", self._absolute(path_or_url), **kwargs)

    def post(self, path_or_url: str, **kwargs) -> requests.Response:
        return self.request("POST", self._absolute(path_or_url), **kwargs)

    def _absolute(self, path_or_url: str) -> str:
        return path_or_url if "://" in path_or_url else self.app + path_or_url

    # -- API calls of the app -------------------------------------------------------------------

    def session_info(self) -> requests.Response:
        return self.get(f"{self.prefix}/session", initiator=self.app, navigation=False,
                        headers={"Accept": "application/json"})

    def check(self) -> requests.Response:
        return self.get(f"{self.prefix}/check", navigation=False)

    def app_post(self, path: str, *, origin: str | None = None, site: str | None = None,
                 data=None) -> requests.Response:
        """A POST a page of the app makes (same-origin), or, with `origin`, one from another site."""
        initiator = origin or self.app
        headers = {}
        if site is not None:
            headers["Sec-Fetch-Site"] = site
        return self.post(path, initiator=initiator, data=data if data is not None else {}, headers=headers)

    def logout(self) -> requests.Response:
        return self.app_post(f"{self.prefix}/logout")

    # -- the sign-in, hop by hop -----------------------------------------------------------------

    def begin(self, provider: str, intent: str = "login", return_to: str | None = "/") -> requests.Response:
        """The click on "Sign in with …" on an app page."""
        query = "" if return_to is None else "?" + urlencode({"return_to": return_to})
        return self.get(f"{self.prefix}/{provider}/{intent}{query}", initiator=self.app)

    def start(self, provider: str, intent: str = "login", return_to: str | None = "/") -> SignIn:
        response = self.begin(provider, intent, return_to)
        location = response.headers.get("Location", "")
        if response.status_code not in (302, 303) or not location.startswith((self.sandbox or "") + "/"):
            raise AssertionError(
                f"GET {self.prefix}/{provider}/{intent}: expected 302 to the sandbox {self.sandbox}, found "
                f"{response.status_code} Location={location!r} body={response.text[:300]!r}")
        return SignIn(provider=provider, start=response, authorize_url=location)

    def consent(self, flow: SignIn, identity: Identity | None, decision: str = "allow",
                extra_fields: list[tuple[str, str]] | None = None) -> requests.Response:
        """Opens the sandbox's consent page (a cross-site navigation from the app) and submits it."""
        page = self.get(flow.authorize_url, initiator=self.app)
        flow.consent_page = page
        if page.status_code != 200:
            raise AssertionError(f"consent page: expected 200, found {page.status_code}: {page.text[:500]!r}")
        forms = [form for form in parse_forms(page.text, page.url) if form.field("ticket") is not None]
        if len(forms) != 1:
            raise AssertionError(f"consent page: expected one form with a ticket, found {len(forms)}")
        form = forms[0]
        fields = [("ticket", form.field("ticket") or "")]
        if identity is not None:
            fields += identity.form_fields()
        else:
            fields += [("identity", "preset-0")]
        fields += extra_fields or []
        fields.append(("decision", decision))
        answer = self.submit(page, form, fields)
        flow.provider_answer = answer
        return answer

    def submit(self, page: requests.Response, form: Form, fields=None, headers: dict | None = None
               ) -> requests.Response:
        """Submits `form` of `page` as the browser would: for a POST, with the `Origin` the page's referrer
        policy allows."""
        data = form.fields() if fields is None else fields
        if form.method != "post":
            separator = "&" if "?" in form.action else "?"
            return self.get(form.action + separator + urlencode(data), initiator=page.url, headers=headers)
        extra = {"Origin": origin_header(page.url, referrer_policy(page), form.action)}
        extra.update(headers or {})
        return self.post(form.action, initiator=page.url, data=data, headers=extra)

    def callback_from(self, flow: SignIn) -> Callback:
        """What the provider's answer tells the browser to do next, without doing it."""
        answer = flow.provider_answer
        assert answer is not None
        if answer.status_code in (301, 302, 303, 307, 308):
            location = urljoin(answer.url, answer.headers["Location"]).split("#", 1)[0]
            return Callback("GET", location)
        if answer.status_code == 200:
            forms = parse_forms(answer.text, answer.url)
            if len(forms) == 1 and forms[0].method == "post":
                return Callback("POST", forms[0].action, forms[0].fields(), page_url=answer.url,
                                page_policy=referrer_policy(answer))
        raise AssertionError(
            f"{flow.provider}: the sandbox answered the consent with {answer.status_code}, expected a redirect "
            f"or a form_post page: {answer.text[:500]!r}")

    def deliver(self, callback: Callback, *, initiator: str | None = None, headers: dict | None = None,
                follow_bounce: bool = True, flow: SignIn | None = None) -> requests.Response:
        """Sends the callback as the browser would coming from the provider's page (cross-site). When the
        app answers a cross-site form POST with its same-site bounce page (a form that POSTs the same
        fields to the app again), submits that from the app's own origin."""
        initiator = initiator or callback.page_url or self.sandbox
        if callback.method == "GET":
            response = self.get(callback.url, initiator=initiator, headers=headers)
        else:
            extra = {"Origin": origin_header(initiator, callback.page_policy, callback.url)}
            extra.update(headers or {})
            response = self.post(callback.url, initiator=initiator, data=callback.fields, headers=extra)
        if follow_bounce:
            bounce = self.bounce_form(response)
            if bounce is not None:
                if flow is not None:
                    flow.bounced = True
                response = self.submit(response, bounce, headers=headers)
        return response

    def bounce_form(self, response: requests.Response) -> Form | None:
        """The app's same-site bounce page: a 200 HTML page whose form POSTs back to the app itself."""
        if response.status_code != 200 or "html" not in response.headers.get("Content-Type", ""):
            return None
        for form in parse_forms(response.text, response.url):
            if form.method == "post" and origin_of(form.action) == origin_of(self.app) \
                    and "/callback" in urlsplit(form.action).path:
                return form
        return None

    def sign_in(self, provider: str, identity: Identity | None, *, intent: str = "login",
                return_to: str | None = "/", drop_fields: tuple[str, ...] = ()) -> SignIn:
        """The whole sign-in; `flow.result` is the app's answer to the callback (not yet checked)."""
        flow = self.start(provider, intent, return_to)
        self.consent(flow, identity)
        callback = self.callback_from(flow)
        if drop_fields and callback.fields is not None:
            callback.fields = [(k, v) for k, v in callback.fields if k not in drop_fields]
        flow.callback = callback
        flow.result = self.deliver(callback, flow=flow)
        return flow

    def signed_in(self, provider: str, identity: Identity | None, *, return_to: str = "/", **kwargs) -> dict:
        """Signs in and checks the redirect to `return_to`; returns the `/auth/session` JSON."""
        flow = self.sign_in(provider, identity, return_to=return_to, **kwargs)
        expect_redirect(flow.result, return_to, context=f"{provider} callback ({' | '.join(self.log[-4:])})")
        response = self.session_info()
        if response.status_code != 200:
            raise AssertionError(f"/auth/session after a {provider} sign-in: expected 200, found "
                                 f"{response.status_code}: {response.text[:300]!r}")
        return response.json()


# ---------------------------------------------------------------------------------------------
# Assertions
# ---------------------------------------------------------------------------------------------


def expect_redirect(response: requests.Response, return_to: str, *, context: str = "") -> None:
    location = response.headers.get("Location")
    if response.status_code not in (302, 303) or location is None:
        raise AssertionError(f"{context}: expected 302/303 to {return_to!r}, found {response.status_code} "
                             f"{response.text[:500]!r}")
    parts = urlsplit(urljoin(response.url, location))
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    if urlsplit(location).netloc:
        assert origin_of(location) == origin_of(response.url), f"{context}: redirected off-site to {location!r}"
    assert path == return_to, f"{context}: expected a redirect to {return_to!r}, found {location!r}"


def expect_error(response: requests.Response, codes, statuses=(400, 401, 403), *, context: str = "") -> dict:
    """The server's JSON refusal: a 400/401/403 with {"error": CODE, "message": TEXT}."""
    codes = {codes} if isinstance(codes, str) else set(codes)
    assert response.status_code in statuses, (
        f"{context}: expected status {statuses} with error {sorted(codes)}, found {response.status_code} "
        f"Location={response.headers.get('Location')!r} body={response.text[:500]!r}")
    content_type = response.headers.get("Content-Type", "")
    assert "json" in content_type, f"{context}: expected a JSON error, found Content-Type {content_type!r}"
    body = response.json()
    assert isinstance(body, dict) and {"error", "message"} <= set(body), f"{context}: error body {body!r}"
    assert isinstance(body["error"], str) and isinstance(body["message"], str) and body["message"], \
        f"{context}: error body {body!r}"
    assert body["error"] in codes, f"{context}: expected error {sorted(codes)}, found {body!r}"
    return body


def b64url_decode(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# ---------------------------------------------------------------------------------------------
# A tiny HTTP receiver (captures what the sandbox POSTs, e.g. Apple notifications)
# ---------------------------------------------------------------------------------------------


class CaptureServer:
    """Answers every POST with 200 and keeps (path, headers, body) for the test."""

    def __init__(self):
        captured: queue.Queue = queue.Queue()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(min(length, 1 << 20))
                captured.put((self.path, dict(self.headers), body))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.captured = captured
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.timeout = 5
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.2},
                                       daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def next(self, timeout: float = 10):
        try:
            return self.captured.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"nothing was POSTed to {self.url} within {timeout} s") from None


# ---------------------------------------------------------------------------------------------
# Apple notifications through the sandbox's admin endpoint
# ---------------------------------------------------------------------------------------------

APPLE_CLIENT_ID = "com.example.web"


def notify(server: ServerProcess, kind: str, subject: str, to: str, *, client_id: str = APPLE_CLIENT_ID,
           **extra) -> dict:
    """Asks the sandbox to sign and send an Apple notification to `to`; returns the admin answer."""
    fields = {"type": kind, "sub": subject, "client_id": client_id, "to": to, **extra}
    response = direct.post(server.sandbox_url + "/_sandbox/apple/notify", data=fields,
                             timeout=HTTP_TIMEOUT)
    assert response.status_code == 200, f"sandbox notify: {response.status_code} {response.text[:300]}"
    return response.json()


def capture_notification(server: ServerProcess, kind: str, subject: str, **extra) -> bytes:
    """The exact body the sandbox would POST to the app for this event."""
    with CaptureServer() as receiver:
        answer = notify(server, kind, subject, receiver.url + "/auth/apple/notifications", **extra)
        path, headers, body = receiver.next()
    assert answer.get("status") == 200, answer
    assert path == "/auth/apple/notifications"
    assert headers.get("Content-Type", "").startswith("application/json"), headers
    payload = json.loads(body)["payload"]
    assert payload.count(".") == 2
    return body


def post_notification(server: ServerProcess, body: bytes) -> requests.Response:
    return direct.post(server.app_url + "/auth/apple/notifications", data=body,
                         headers={"Content-Type": "application/json"}, timeout=HTTP_TIMEOUT)
