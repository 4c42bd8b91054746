"""Observability of `authflow serve` (issue 14): Prometheus `/metrics` on its own listener
(`server.metrics_listen`), parsed with `prometheus_client`'s text parser; JSON log lines
(`server.log_format: json`) that carry each response's `X-Request-Id` and no secret."""

from __future__ import annotations

import json
import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest

import authflow_harness as harness
from authflow_harness import Callback, Identity, direct, expect_error, notify


#: How each provider of the harness configuration gets its identity (id_token providers verify it against the
#: JWKS, docs/architecture.md; the others call userinfo).
IDENTITY_ENDPOINT = {"apple": "jwks", "google": "jwks", "facebook": "userinfo", "x": "userinfo"}


def parse_metrics():
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        harness.missing("prometheus_client is not installed (pip install -r Tests/e2e/requirements.txt)")
    return text_string_to_metric_families


@pytest.fixture(scope="module")
def observed(module_servers) -> harness.ServerProcess:
    """`serve --sandbox` with the four providers, metrics on a free loopback port and JSON logs."""
    return module_servers.launch(server_extra="  metrics_listen: 127.0.0.1:0\n  log_format: json\n")


def metrics_url(server: harness.ServerProcess) -> str:
    for line in server.stdout_lines:
        ready = harness.ready_line(line)
        if ready and ready["name"] == "metrics":
            return ready["url"].removesuffix("/metrics")
    raise AssertionError("no 'metrics listening' line on stdout:\n" + "\n".join(server.stdout_lines))


def scrape(server: harness.ServerProcess) -> dict:
    """Every sample of `/metrics` as {(sample name, frozenset of labels): value}."""
    response = direct.get(metrics_url(server) + "/metrics", timeout=harness.HTTP_TIMEOUT)
    assert response.status_code == 200, response.text[:300]
    assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4"), response.headers
    samples = {}
    for family in parse_metrics()(response.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def delta(before: dict, after: dict, name: str, **labels) -> float:
    key = (name, frozenset(labels.items()))
    assert key in after, f"no sample {name}{labels} in /metrics"
    return after[key] - before.get(key, 0.0)


def label_values(samples: dict, name: str, label: str) -> set:
    return {dict(labels)[label] for (sample, labels) in samples if sample == name and label in dict(labels)}


def sign_in_keeping_the_flow_cookie(browser, provider: str, identity: Identity):
    """A whole sign-in, and its flow cookie as it was before the callback cleared it (for a replay)."""
    flow = browser.start(provider)
    browser.consent(flow, identity)
    flow.callback = browser.callback_from(flow)
    kept = next(c for c in browser.session.cookies if c.name.startswith("authflow_flow_"))
    flow.result = browser.deliver(flow.callback, flow=flow)
    return flow, kept


def replay_with(browser, flow, kept):
    """Delivers the flow's callback again with its flow cookie sent again: refused, its state is spent."""
    browser.session.cookies.set(kept.name, kept.value, domain=kept.domain, path="/")
    return browser.deliver(flow.callback)


def test_metrics_count_exactly_what_happened(observed):
    before = scrape(observed)
    flows = {}
    browsers = {}
    cookies = {}
    for provider in harness.PROVIDERS:
        browser = observed.browser(provider)
        flow, kept = sign_in_keeping_the_flow_cookie(browser, provider, Identity.fresh(provider))
        harness.expect_redirect(flow.result, "/", context=f"{provider} sign-in")
        flows[provider], browsers[provider], cookies[provider] = flow, browser, kept
    # A refused callback: Google's callback delivered a second time (its state is spent).
    replay = replay_with(browsers["google"], flows["google"], cookies["google"])
    refused = expect_error(replay, "invalid_state", context="replayed callback")["error"]
    # /auth/check: one signed-in browser (202), one without a session (401).
    assert browsers["google"].check().status_code == 202
    assert observed.browser("anonymous").check().status_code == 401
    # An Apple notification for the Apple user, applied.
    apple_session = browsers["apple"].session_info().json()
    answer = notify(observed, "email-enabled", apple_session["subject"], observed.app_url + "/auth/apple/notifications",
                    email="relay-metrics@privaterelay.appleid.com", is_private_email="true")
    assert answer.get("status") == 200, answer
    after = scrape(observed)

    for provider in harness.PROVIDERS:
        assert delta(before, after, "authflow_sign_ins_total", provider=provider, intent="login",
                     outcome="success") == 1, provider
        assert delta(before, after, "authflow_sign_in_duration_seconds_count", provider=provider) == 1, provider
        assert delta(before, after, "authflow_provider_requests_total", provider=provider, endpoint="token",
                     status="200") == 1, provider
        assert delta(before, after, "authflow_provider_request_duration_seconds_count", provider=provider,
                     endpoint="token") == 1, provider
        identity_endpoint = IDENTITY_ENDPOINT[provider]
        assert delta(before, after, "authflow_provider_requests_total", provider=provider,
                     endpoint=identity_endpoint, status="200") == 1, provider
        other = "userinfo" if identity_endpoint == "jwks" else "jwks"
        assert delta(before, after, "authflow_provider_request_duration_seconds_count", provider=provider,
                     endpoint=other) == 0, provider
        assert delta(before, after, "authflow_jwks_stale_served_total", provider=provider) == 0
    # Each id_token provider fetched its JWKS once, cold; the notification reused Apple's cached set.
    for provider in ("apple", "google"):
        assert delta(before, after, "authflow_jwks_fetches_total", provider=provider, reason="cold") == 1
        assert delta(before, after, "authflow_jwks_fetches_total", provider=provider, reason="unknown_kid") == 0
    assert delta(before, after, "authflow_sign_ins_total", provider="google", intent="unknown",
                 outcome=refused) == 1
    assert delta(before, after, "authflow_sessions_checked_total", result="202") == 1
    assert delta(before, after, "authflow_sessions_checked_total", result="401") == 1
    assert delta(before, after, "authflow_notifications_total", provider="apple", type="email-enabled",
                 applied="true") == 1
    assert delta(before, after, "authflow_http_requests_total", route="/auth/{provider}/login",
                 status="302") == 4
    bounced = sum(1 for flow in flows.values() if flow.bounced)
    redirects_302 = sum(1 for flow in flows.values() if flow.result.status_code == 302)
    assert delta(before, after, "authflow_http_requests_total", route="/auth/{provider}/callback",
                 status="302") == redirects_302
    assert delta(before, after, "authflow_http_requests_total", route="/auth/{provider}/callback",
                 status="303") == 4 - redirects_302
    if bounced:
        assert delta(before, after, "authflow_http_requests_total", route="/auth/{provider}/callback",
                     status="200") == bounced
    assert delta(before, after, "authflow_http_requests_total", route="/auth/{provider}/callback",
                 status=str(replay.status_code)) == 1
    assert delta(before, after, "authflow_http_requests_total", route="/auth/{provider}/notifications",
                 status="200") == 1
    for name in ("accounts", "sessions", "flows"):
        assert delta(before, after, "authflow_store_errors_total", store=name) == 0

    # Bounded labels: routes are templates, providers are the configured names, never raw paths or user data.
    routes = label_values(after, "authflow_http_requests_total", "route")
    assert all(route == "other" or (route.startswith("/") and "?" not in route) for route in routes), routes
    assert not any(provider in route for route in routes for provider in ("google", "facebook", "/x/")), routes
    for name in ("authflow_sign_ins_total", "authflow_provider_requests_total"):
        assert label_values(after, name, "provider") <= set(harness.PROVIDERS)
    # Process metrics from /proc.
    assert after[("process_resident_memory_bytes", frozenset())] > 0
    assert after[("process_open_fds", frozenset())] > 0
    assert after[("process_cpu_seconds_total", frozenset())] > 0
    assert 0 < after[("process_start_time_seconds", frozenset())] <= time.time()


def test_a_rate_limited_start_is_counted_once(servers):
    """A start over its client's token bucket answers 429 and moves `authflow_rate_limited_total` by exactly one."""
    limited = servers.launch(
        server_extra="  metrics_listen: 127.0.0.1:0\n  rate_limits: { starts: { per_minute: 1, burst: 2 } }\n")
    before = scrape(limited)
    browser = limited.browser("flooding")
    answers = [browser.begin("google").status_code for _ in range(3)]
    assert answers == [302, 302, 429], answers
    after = scrape(limited)
    assert delta(before, after, "authflow_rate_limited_total", route="/auth/{provider}/login") == 1
    assert delta(before, after, "authflow_http_requests_total", route="/auth/{provider}/login", status="429") == 1
    assert delta(before, after, "authflow_http_requests_total", route="/auth/{provider}/login", status="302") == 2


def test_metrics_are_not_served_on_the_public_listener(observed):
    for base in (observed.listen_url, observed.app_url):
        response = direct.get(base + "/metrics", timeout=harness.HTTP_TIMEOUT)
        assert response.status_code == 404, f"{base}/metrics answered {response.status_code}"
        assert "authflow_" not in response.text
        assert response.headers.get("X-Request-Id")
    # The metrics listener serves only /metrics.
    other = direct.get(metrics_url(observed) + "/auth/check", timeout=harness.HTTP_TIMEOUT)
    assert other.status_code == 404
    assert direct.post(metrics_url(observed) + "/metrics", timeout=harness.HTTP_TIMEOUT).status_code == 405


def test_every_response_has_a_request_id_and_a_client_cannot_choose_it(observed):
    browser = observed.browser()
    chosen = "client-chosen-id-0001"
    ids = set()
    for _ in range(3):
        response = browser.get("/auth/check", headers={"X-Request-Id": chosen}, navigation=False)
        assert response.status_code == 401
        request_id = response.headers.get("X-Request-Id", "")
        assert re.fullmatch(r"[0-9a-f]{32}", request_id), request_id
        ids.add(request_id)
    assert len(ids) == 3, "request ids repeat"


def json_lines(server: harness.ServerProcess, start: int) -> list[dict]:
    text = server.stderr_path.read_text(errors="replace")[start:]
    objects = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise AssertionError(f"log line {number} is not JSON ({error}): {line[:300]!r}") from None
        assert isinstance(value, dict), line
        for key in ("time", "level", "event", "request_id", "provider", "route", "status", "duration_ms"):
            assert key in value, f"log line without {key!r}: {line[:300]!r}"
        objects.append(value)
    return objects


def test_json_logs_make_the_ready_lines_json_too(observed):
    """With `log_format: json` a log shipper reading stdout and stderr sees only JSON lines."""
    assert observed.stdout_lines, "no ready line"
    events = []
    for line in observed.stdout_lines:
        value = json.loads(line)
        assert value["level"] == "info" and value["url"].startswith("http://"), line
        events.append(value["event"])
    assert events[:3] == ["app listening", "metrics listening", "sandbox listening"], events
    json_lines(observed, 0)


def cookie_values(browser: harness.Browser) -> list[str]:
    return [cookie.value for cookie in browser.session.cookies if cookie.value and len(cookie.value) >= 8]


def test_json_logs_of_a_sign_in_and_a_refused_callback(observed):
    start = len(observed.stderr_path.read_text(errors="replace"))
    browser = observed.browser("logged")
    identity = Identity.fresh("google")
    flow, kept = sign_in_keeping_the_flow_cookie(browser, "google", identity)
    harness.expect_redirect(flow.result, "/", context="google sign-in")
    cookies = cookie_values(browser) + [kept.value]
    replay = replay_with(browser, flow, kept)
    expect_error(replay, "invalid_state", context="replayed callback")
    responses = {"login": flow.start, "callback": flow.result, "refused": replay}
    time.sleep(0.2)  # the server writes its request line after answering
    lines = json_lines(observed, start)
    assert lines, "no log lines"

    by_id = {}
    for line in lines:
        by_id.setdefault(line["request_id"], []).append(line)
    for name, response in responses.items():
        request_id = response.headers.get("X-Request-Id")
        assert request_id, f"{name}: no X-Request-Id"
        assert request_id in by_id, f"{name}: no log line carries request id {request_id}"
        request_lines = by_id[request_id]
        final = [line for line in request_lines if line["event"] == "request"]
        assert len(final) == 1, request_lines
        assert final[0]["status"] == response.status_code
        assert isinstance(final[0]["duration_ms"], (int, float)) and final[0]["duration_ms"] >= 0
        if name != "login":
            assert final[0]["route"] == "/auth/{provider}/callback"
            assert all(line["provider"] == "google" for line in request_lines), request_lines
    refused_lines = by_id[replay.headers["X-Request-Id"]]
    assert {line.get("code") for line in refused_lines} == {"invalid_state"}, refused_lines
    assert any(line["event"] == "sign-in refused" for line in refused_lines), refused_lines
    assert any(line["event"] == "signed in" for line in by_id[flow.result.headers["X-Request-Id"]])

    # No secret in any line: the authorization code, the state, the cookies, the full email, the secret.
    query = parse_qs(urlsplit(flow.callback.url).query)
    fields = dict(flow.callback.fields or [])
    code = (query.get("code") or [fields.get("code")])[0]
    state = (query.get("state") or [fields.get("state")])[0]
    config_secret = re.search(r"secret: (\S+)", (observed.workdir / "providers.yaml").read_text()).group(1)
    known = {"code": code, "state": state, "email": identity.email, "server.secret": config_secret}
    known.update({f"cookie {i}": value for i, value in enumerate(cookies)})
    text = observed.stderr_path.read_text(errors="replace")[start:]
    for what, value in known.items():
        assert value and len(value) >= 8, what
        assert value not in text, f"the log contains the {what}"
