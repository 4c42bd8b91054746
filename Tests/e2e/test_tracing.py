"""OpenTelemetry traces of `authflow serve` (issue 38, docs/tracing.md): spans exported over OTLP/HTTP in protobuf to
a receiver in this suite that decodes them with the official definitions (PyPI `opentelemetry-proto`). A sign-in
through the sandbox gives a SERVER span per request and CLIENT spans for the provider calls, children of the
callback's span; a `traceparent` is continued only from a trusted proxy; no token, code, state or cookie appears
in any attribute; a collector that is down or never answers delays no sign-in, and the failures and drops are
counted in `/metrics`."""

from __future__ import annotations

import http.server
import secrets
import socket
import threading
import time
from urllib.parse import parse_qsl, urlsplit

import pytest
import requests
from requests.adapters import HTTPAdapter

import authflow_harness as harness
from authflow_harness import Identity, direct

#: Seconds a condition (spans arriving, a counter rising) may take; the exporter sends every second.
DEADLINE = 60


def trace_service_pb2():
    try:
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as module
    except ImportError:
        harness.missing("opentelemetry-proto is not installed (pip install -r Tests/e2e/requirements.txt)")
    return module


def attribute_value(value):
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [attribute_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind else None


def attributes(items) -> dict:
    return {item.key: attribute_value(item.value) for item in items}


class Collector:
    """An OTLP/HTTP traces receiver: decodes each POST body as an ExportTraceServiceRequest."""

    def __init__(self):
        self.spans: list[dict] = []
        self.resources: list[dict] = []
        self.refused: list[str] = []
        self.lock = threading.Lock()
        module = trace_service_pb2()
        collector = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path != "/v1/traces" or self.headers.get("Content-Type") != "application/x-protobuf":
                    with collector.lock:
                        collector.refused.append(f"{self.path} {self.headers.get('Content-Type')}")
                    self.send_response(415)
                    self.end_headers()
                    return
                request = module.ExportTraceServiceRequest()
                request.ParseFromString(body)
                collector.record(request)
                answer = module.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def record(self, request) -> None:
        with self.lock:
            for resource_spans in request.resource_spans:
                self.resources.append(attributes(resource_spans.resource.attributes))
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        self.spans.append({
                            "trace_id": span.trace_id.hex(), "span_id": span.span_id.hex(),
                            "parent_span_id": span.parent_span_id.hex(), "trace_state": span.trace_state,
                            "name": span.name, "kind": span.kind, "status": span.status.code,
                            "start": span.start_time_unix_nano, "end": span.end_time_unix_nano,
                            "attributes": attributes(span.attributes), "scope": scope_spans.scope.name,
                            "events": [{"name": event.name, "time": event.time_unix_nano,
                                        "attributes": attributes(event.attributes)} for event in span.events],
                        })

    def wait_for(self, predicate, what: str) -> list[dict]:
        deadline = time.monotonic() + DEADLINE
        while True:
            with self.lock:
                found = [span for span in self.spans if predicate(span)]
            if found:
                return found
            assert time.monotonic() < deadline, f"no span {what} arrived; spans: {[s['name'] for s in self.spans]}"
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class SilentCollector:
    """Accepts connections and never answers (a collector that hangs)."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1/traces"
        self.accepted: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.accepted.append(connection)

    def connections(self) -> int:
        with self.lock:
            return len(self.accepted)

    def first_still_open(self) -> bool:
        """Whether the exporter still holds the first export open (waiting for an answer that never comes)."""
        with self.lock:
            connection = self.accepted[0]
        try:
            return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
        except BlockingIOError:
            return True

    def stop(self) -> None:
        self.listener.close()
        with self.lock:
            for connection in self.accepted:
                connection.close()


def closed_port() -> int:
    """A loopback port nothing listens on (connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


SERVER_KIND, CLIENT_KIND = 2, 3
#: The address the tests' trusted proxy sends from (`server.trusted_proxies`); the browser itself is 127.0.0.1.
PROXY_ADDRESS = "127.0.0.2"


class FromAddress(HTTPAdapter):
    """Sends from a chosen loopback source address (as a proxy in front of the server would)."""

    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def tracing_config(endpoint: str, extra: str = "") -> str:
    return ("  metrics_listen: 127.0.0.1:0\n"
            f"  trusted_proxies: [{PROXY_ADDRESS}]\n"
            "  tracing:\n"
            f"    endpoint: {endpoint}\n"
            "    service_name: authflow-e2e\n" + extra)


@pytest.fixture(scope="module")
def collector():
    receiver = Collector()
    yield receiver
    receiver.stop()


@pytest.fixture(scope="module")
def traced(module_servers, collector) -> harness.ServerProcess:
    return module_servers.launch(server_extra=tracing_config(collector.url))


def metrics(server: harness.ServerProcess) -> dict:
    url = next(ready["url"] for line in server.stdout_lines
               if (ready := harness.ready_line(line)) and ready["name"] == "metrics")
    text = direct.get(url, timeout=harness.HTTP_TIMEOUT).text
    values = {}
    for line in text.splitlines():
        if line.startswith("authflow_tracing_"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def wait_for_metric(server, name: str, minimum: float) -> float:
    deadline = time.monotonic() + DEADLINE
    while True:
        value = metrics(server).get(name, 0.0)
        if value >= minimum:
            return value
        assert time.monotonic() < deadline, f"{name} stayed at {value}, expected at least {minimum}"
        time.sleep(0.1)


def sign_in(browser, provider: str = "google", headers: dict | None = None):
    flow = browser.start(provider)
    browser.consent(flow, Identity.fresh(provider))
    flow.callback = browser.callback_from(flow)
    flow.result = browser.deliver(flow.callback, flow=flow, headers=headers)
    harness.expect_redirect(flow.result, "/", context=f"{provider} sign-in")
    return flow


def secrets_of(browser, flow) -> set[str]:
    """The values no span may carry: the callback's code and state, every cookie, the session."""
    callback = flow.callback
    fields = dict(parse_qsl(urlsplit(callback.url).query)) if callback.method == "GET" else dict(callback.fields)
    values = {fields[name] for name in ("code", "state", "id_token") if fields.get(name)}
    values |= {cookie.value for cookie in browser.session.cookies if len(cookie.value) >= 8}
    return values


def all_text(span: dict) -> list[str]:
    texts = [span["name"], span["trace_state"]]
    for values in [span["attributes"]] + [event["attributes"] for event in span["events"]]:
        for value in values.values():
            texts += [str(item) for item in value] if isinstance(value, list) else [str(value)]
    texts += [event["name"] for event in span["events"]]
    return texts


def test_a_sign_in_is_a_server_span_per_request_with_linked_client_spans_and_no_secret(traced, collector):
    browser = traced.browser("traced")
    flow = sign_in(browser, "google")
    login = collector.wait_for(
        lambda s: s["kind"] == SERVER_KIND and s["attributes"].get("http.route") == "/auth/{provider}/login"
        and s["attributes"].get("authflow.provider") == "google", "for the login")[-1]
    callback = collector.wait_for(
        lambda s: s["kind"] == SERVER_KIND and s["attributes"].get("http.route") == "/auth/{provider}/callback"
        and s["attributes"].get("http.response.status_code") in (302, 303), "for the callback")[-1]
    assert callback["name"] in ("GET /auth/{provider}/callback", "POST /auth/{provider}/callback")
    assert login["attributes"]["http.response.status_code"] == 302
    assert login["trace_id"] != callback["trace_id"], "two requests of an untrusted browser: two traces"
    for span in (login, callback):
        assert span["parent_span_id"] == "", "no incoming traceparent from the browser: a root span"
        assert span["scope"] == "authflow"
        assert span["attributes"]["server.address"] == "localhost"
        assert span["attributes"]["client.address"] == "127.0.0.1"
        assert span["attributes"]["url.path"].startswith("/auth/google/")
        assert "?" not in span["attributes"]["url.path"]
        assert span["attributes"]["http.request.method"] in ("GET", "POST")
        assert span["end"] >= span["start"] > 0
    assert {"service.name": "authflow-e2e"}.items() <= collector.resources[0].items()
    # The provider calls of the callback: children of its span, in its trace.
    children = collector.wait_for(
        lambda s: s["kind"] == CLIENT_KIND and s["parent_span_id"] == callback["span_id"], "under the callback")
    endpoints = {child["attributes"].get("authflow.provider.endpoint") for child in children}
    assert {"token", "jwks"} <= endpoints, endpoints
    for child in children:
        assert child["trace_id"] == callback["trace_id"]
        assert child["attributes"]["http.response.status_code"] == 200
        assert child["attributes"]["authflow.provider"] == "google"
        assert child["attributes"]["server.address"] == "127.0.0.1"
        assert "?" not in child["attributes"]["url.full"]
        assert callback["start"] <= child["start"] <= child["end"] <= callback["end"]
    events = [event["name"] for event in callback["events"]]
    for step in ("flow.state_verified", "token.exchanged", "jwks.obtained", "id_token.verified",
                 "identity.established", "account.created", "session.started"):
        assert step in events, events
    assert "flow.started" in [event["name"] for event in login["events"]]
    # No secret anywhere in what was exported.
    forbidden = secrets_of(browser, flow)
    assert forbidden, "the sign-in left no code, state or cookie to look for"
    with collector.lock:
        exported = list(collector.spans)
    for span in exported:
        for text in all_text(span):
            assert "eyJ" not in text, f"a JWT in span {span['name']}: {text[:40]}"
            for secret in forbidden:
                assert secret not in text, f"a secret value in span {span['name']}"


def test_a_trusted_proxy_continues_its_trace_and_an_untrusted_client_does_not(traced, collector):
    trace_id, parent_id = secrets.token_hex(16), secrets.token_hex(8)
    proxy = traced.browser("via proxy")
    proxy.session.mount(traced.app_url, FromAddress(PROXY_ADDRESS))
    header = {"traceparent": f"00-{trace_id}-{parent_id}-01", "tracestate": "proxy=e2e"}
    flow = sign_in(proxy, "facebook", headers=header)
    callback = collector.wait_for(
        lambda s: s["trace_id"] == trace_id and s["kind"] == SERVER_KIND
        and s["attributes"].get("http.response.status_code") in (302, 303), "in the proxy's trace")[-1]
    assert callback["parent_span_id"] == parent_id
    assert callback["trace_state"] == "proxy=e2e"
    assert callback["attributes"]["http.route"] == "/auth/{provider}/callback"
    children = collector.wait_for(
        lambda s: s["kind"] == CLIENT_KIND and s["parent_span_id"] == callback["span_id"], "under it")
    assert all(child["trace_id"] == trace_id for child in children)
    assert {"token", "userinfo"} <= {child["attributes"].get("authflow.provider.endpoint") for child in children}
    assert flow.result.status_code in (302, 303)
    # Each provider call carried its own span's traceparent to the sandbox (which keeps what it was sent).
    received = direct.get(traced.sandbox_url + "/_sandbox/traceparents", timeout=harness.HTTP_TIMEOUT).json()
    sent = {entry["traceparent"] for entry in received["traceparents"]}
    for child in children:
        assert f"00-{trace_id}-{child['span_id']}-01" in sent, (child["name"], sorted(sent)[-5:])

    # The same header from the browser itself (not a trusted proxy) starts a new trace.
    other_trace, other_parent = secrets.token_hex(16), secrets.token_hex(8)
    client = traced.browser("direct")
    answer = client.get("/auth/session", headers={"traceparent": f"00-{other_trace}-{other_parent}-01"})
    assert answer.status_code == 401
    request_id = answer.headers["X-Request-Id"]
    span = collector.wait_for(lambda s: s["attributes"].get("authflow.request_id") == request_id, "of it")[0]
    assert span["trace_id"] != other_trace
    assert span["parent_span_id"] == ""
    # A malformed traceparent from the trusted proxy is ignored too.
    answer = proxy.get("/auth/session", headers={"traceparent": f"00-{'0' * 32}-{other_parent}-01"})
    request_id = answer.headers["X-Request-Id"]
    span = collector.wait_for(lambda s: s["attributes"].get("authflow.request_id") == request_id, "of it")[0]
    assert span["parent_span_id"] == "" and span["trace_id"] != "0" * 32


def test_a_collector_that_is_down_delays_no_sign_in_and_the_failures_are_counted(servers):
    app = servers.launch(server_extra=tracing_config(f"http://127.0.0.1:{closed_port()}/v1/traces"))
    before = metrics(app)
    for provider in ("google", "x"):
        sign_in(app.browser(provider), provider)
    failures = wait_for_metric(app, "authflow_tracing_export_failures_total", before.get(
        "authflow_tracing_export_failures_total", 0) + 1)
    assert failures >= 1
    assert wait_for_metric(app, "authflow_tracing_spans_failed_total", 1) >= 1
    assert metrics(app).get("authflow_tracing_spans_exported_total", 0) == 0
    # Still signing in after the failures.
    sign_in(app.browser("after"), "google")


def test_a_collector_that_never_answers_delays_no_sign_in_and_drops_are_counted(servers):
    silent = SilentCollector()
    try:
        app = servers.launch(server_extra=tracing_config(silent.url, "    timeout: 20s\n    queue_size: 4\n"))
        direct.get(app.app_url + "/healthz", timeout=harness.HTTP_TIMEOUT)
        deadline = time.monotonic() + DEADLINE
        while silent.connections() == 0:
            assert time.monotonic() < deadline, "the exporter never connected to the collector"
            time.sleep(0.05)
        # An export now hangs on the collector: sign-ins go on regardless, and the queue of 4 overflows.
        for provider in ("google", "apple", "facebook"):
            sign_in(app.browser(provider), provider)
        assert silent.first_still_open(), "the sign-ins finished only after the hanging export gave up"
        assert metrics(app).get("authflow_tracing_export_failures_total", 0) == 0
        assert wait_for_metric(app, "authflow_tracing_spans_dropped_total", 1) >= 1
        assert wait_for_metric(app, "authflow_tracing_export_failures_total", 1) >= 1
    finally:
        silent.stop()
