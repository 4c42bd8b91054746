"""One anonymous client cannot exhaust `authflow serve`: connection limits, the whole-request deadline,
stateless sign-in starts and rate limits, seen from outside (issue 10).

The attacker uses the loopback source address 127.0.0.2, the honest user 127.0.0.3: the server counts
connections and rate-limit tokens per client address. Limits and timeouts are configured small so each test
finishes well under a minute; every wait is bounded.
"""

from __future__ import annotations

import resource
import select
import socket
import threading
import time
from pathlib import Path

import requests

import authflow_harness as harness
from authflow_harness import Identity, expect_redirect

ATTACKER = "127.0.0.2"
USER = "127.0.0.3"


class SourceAddressAdapter(requests.adapters.HTTPAdapter):
    """Sends every request from one loopback source address."""

    def __init__(self, source: str, **kwargs):
        self.source = source
        super().__init__(**kwargs)

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.source, 0)
        return super().init_poolmanager(*args, **kwargs)


def browser_from(server: harness.ServerProcess, source: str, name: str) -> harness.Browser:
    browser = server.browser(name)
    adapter = SourceAddressAdapter(source)
    browser.session.mount("http://", adapter)
    return browser


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/", 1)[0])


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS line")


def raise_open_files(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def connect_from(source: str, port: int) -> socket.socket | None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setblocking(True)
    sock.settimeout(2)
    try:
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    except OSError:
        sock.close()
        return None
    sock.setblocking(False)
    return sock


def is_closed(sock: socket.socket) -> bool:
    """Whether the peer closed (or reset) the connection; never blocks."""
    poller = select.poll()  # not select(): the descriptors run far past FD_SETSIZE
    poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
    if not poller.poll(0):
        return False
    try:
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_slow_connections_from_one_address_do_not_starve_another(servers):
    raise_open_files(8192)
    config, port = servers.config(server_extra="""\
  limits:
    max_connections: 4096
    max_connections_per_client: 64
    request_timeout: 3s
    idle_timeout: 30s
""")
    app = servers.start(config)
    pid = app.process.pid
    rss_before = rss_kib(pid)

    # 3,000 connections from the attacker, each with an unfinished request.
    held = [sock for sock in (connect_from(ATTACKER, port) for _ in range(3000)) if sock is not None]
    assert len(held) > 0
    stop = threading.Event()

    def trickle():
        # One header byte every 5 s on every live connection; closed ones are opened again each round.
        while not stop.wait(5):
            for index, sock in enumerate(held):
                if sock is None or is_closed(sock):
                    if sock is not None:
                        sock.close()
                    held[index] = connect_from(ATTACKER, port)
                    continue
                try:
                    sock.send(b"X")
                except OSError:
                    pass

    attacker = threading.Thread(target=trickle, daemon=True)
    attacker.start()
    try:
        user = browser_from(app, USER, "user")
        for _ in range(3):
            health = user.get("/healthz", timeout=2)
            assert health.status_code == 200, health.text
            time.sleep(1)
        identity = Identity.fresh("google")
        flow = user.sign_in("google", identity)
        expect_redirect(flow.result, "/", context="sign-in from another address during the attack")
        assert user.session_info().json()["subject"] == identity.subject
        # The server's memory stays bounded: the per-client cap keeps most connections out.
        assert rss_kib(pid) < rss_before + 200 * 1024
    finally:
        stop.set()
        attacker.join(timeout=15)

    # The attacker goes quiet but keeps its sockets: the request deadline closes every one of them.
    live = [sock for sock in held if sock is not None]
    deadline = time.monotonic() + 3 + 10
    while time.monotonic() < deadline and not all(is_closed(sock) for sock in live):
        time.sleep(0.5)
    still_open = sum(1 for sock in live if not is_closed(sock))
    for sock in live:
        sock.close()
    assert still_open == 0, f"{still_open} attacker connections still open after request_timeout + 10 s"


def storage_bytes(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.glob("authflow.sqlite*"))


def test_a_login_flood_from_one_address_stores_nothing_and_gets_429(servers):
    # The default limits (600 starts a minute, bursts of 100) are used; 50,000 starts are sent over
    # keep-alive connections in pipelined batches, so the flood takes seconds rather than minutes.
    config, port = servers.config()
    app = servers.start(config)
    pid = app.process.pid
    directory = config.parent
    user = browser_from(app, USER, "user")
    expect_redirect(user.sign_in("google", Identity.fresh("google")).result, "/", context="warm-up sign-in")
    before = storage_bytes(directory)
    rss_before = rss_kib(pid)

    statuses: dict[int, int] = {}
    retry_after_seen = threading.Event()
    lock = threading.Lock()
    request = f"GET /auth/google/login?return_to=/ HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n".encode()

    def flood(total: int):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.bind((ATTACKER, 0))
        sock.connect(("127.0.0.1", port))
        buffer = b""
        sent = 0
        try:
            while sent < total:
                batch = min(200, total - sent)
                sock.sendall(request * batch)
                sent += batch
                seen = 0
                while seen < batch:
                    head_end = buffer.find(b"\r\n\r\n")
                    if head_end < 0:
                        chunk = sock.recv(1 << 16)
                        assert chunk, "the server closed a keep-alive connection mid-flood"
                        buffer += chunk
                        continue
                    head = buffer[:head_end].decode("latin-1")
                    length = 0
                    for line in head.split("\r\n")[1:]:
                        name, _, value = line.partition(":")
                        if name.lower() == "content-length":
                            length = int(value.strip())
                        if name.lower() == "retry-after" and int(value.strip()) >= 1:
                            retry_after_seen.set()
                    if len(buffer) < head_end + 4 + length:
                        chunk = sock.recv(1 << 16)
                        assert chunk, "the server closed a keep-alive connection mid-flood"
                        buffer += chunk
                        continue
                    status = int(head.split(" ", 2)[1])
                    with lock:
                        statuses[status] = statuses.get(status, 0) + 1
                    buffer = buffer[head_end + 4 + length:]
                    seen += 1
        finally:
            sock.close()

    def run_flood(during=None):
        flooders = [threading.Thread(target=flood, args=(6_250,), daemon=True) for _ in range(4)]
        for thread in flooders:
            thread.start()
        if during is not None:
            during()
        for thread in flooders:
            thread.join(timeout=120)
        assert not any(thread.is_alive() for thread in flooders), "the flood did not finish"

    # First half alone: nothing is written, so the SQLite file (and its WAL) does not grow.
    run_flood()
    assert storage_bytes(directory) <= before
    assert rss_kib(pid) < rss_before + 100 * 1024

    # Second half with a sign-in from another address running meanwhile: it succeeds.
    def sign_in_meanwhile():
        identity = Identity.fresh("google")
        expect_redirect(user.sign_in("google", identity).result, "/", context="sign-in during the flood")
        assert user.session_info().json()["subject"] == identity.subject

    run_flood(sign_in_meanwhile)
    assert sum(statuses.values()) == 50_000, statuses
    assert set(statuses) <= {302, 429}, statuses
    assert statuses.get(429, 0) > 40_000, statuses
    assert retry_after_seen.is_set()
    expect_redirect(user.sign_in("google", Identity.fresh("google")).result, "/", context="sign-in after")


def test_a_victims_state_without_the_cookie_is_refused_and_the_victim_still_signs_in(servers):
    app = servers.start(servers.config()[0])
    victim = app.browser("victim")
    identity = Identity.fresh("google")
    flow = victim.start("google")
    victim.consent(flow, identity)
    callback = victim.callback_from(flow)
    for name in ("no-cookie", "wrong-cookie"):
        attacker = app.browser(name)
        if name == "wrong-cookie":
            attacker.start("google")  # a flow cookie of its own
            own = next(c for c in attacker.session.cookies if c.name.startswith("authflow_flow_"))
            victims = next(c for c in victim.session.cookies if c.name.startswith("authflow_flow_"))
            attacker.session.cookies.set(victims.name, own.value, domain=own.domain, path="/")
        harness.expect_error(attacker.deliver(callback), "browser_binding_mismatch", (403,), context=name)
    kept = next(c for c in victim.session.cookies if c.name.startswith("authflow_flow_"))
    expect_redirect(victim.deliver(callback), "/", context="the victim's own callback")
    assert victim.session_info().json()["subject"] == identity.subject
    # The sign-in cleared the flow cookie, so a plain replay no longer belongs to the browser; with the
    # cookie kept aside and sent again, the state is found spent.
    assert not any(c.name.startswith("authflow_flow_") for c in victim.session.cookies)
    harness.expect_error(victim.deliver(callback), "browser_binding_mismatch", (403,), context="replay")
    victim.session.cookies.set(kept.name, kept.value, domain=kept.domain, path="/")
    harness.expect_error(victim.deliver(callback), "invalid_state", (400,), context="replay with the cookie")


def test_two_cookies_with_the_flow_cookies_name_are_refused(servers):
    app = servers.start(servers.config()[0])
    browser = app.browser()
    flow = browser.start("google")
    browser.consent(flow, Identity.fresh("google"))
    callback = browser.callback_from(flow)
    cookie = next(c for c in browser.session.cookies if c.name.startswith("authflow_flow_"))
    tossed = f"{cookie.name}={cookie.value}; {cookie.name}=v1.tossed-by-a-sibling"
    response = browser.get(callback.url, initiator=browser.sandbox, headers={"Cookie": tossed},
                           send_cookies=False)
    harness.expect_error(response, "duplicate_cookie", (400,), context="two flow cookies")
    assert browser.session_info().status_code == 401


def test_two_tabs_with_two_providers_both_sign_in(servers):
    app = servers.start(servers.config()[0])
    browser = app.browser()
    google = browser.start("google")
    facebook = browser.start("facebook")
    browser.consent(google, Identity.fresh("google"))
    browser.consent(facebook, Identity.fresh("facebook"))
    expect_redirect(browser.deliver(browser.callback_from(facebook)), "/", context="facebook tab")
    expect_redirect(browser.deliver(browser.callback_from(google)), "/", context="google tab")
    assert browser.session_info().json()["provider"] == "google"
