"""Two `authflow serve` instances on one PostgreSQL and one Redis, as behind a load balancer.

One standalone `authflow sandbox` plays every provider. Instances A and B run in normal mode from the same
providers.yaml (same `server.secret`, same `public_url`, only `server.listen` differs) on a PostgreSQL
cluster and a Redis server this module starts itself, because the last tests stop and restart them.

The browser talks to the public URL; a transport adapter sends each request to the instance the test
chooses (as nginx would pick an upstream), with the public `Host`. So cookies, `Origin` and the redirect
URI are the public ones, and a test can start a sign-in on A and deliver its callback to B.

Waits for something that happens on another instance (the 1 s session cache of docs/server.md) or when a
store comes back poll with a bounded deadline; no test asserts how long anything took.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
import requests
import requests.adapters

import authflow_harness as harness
from authflow_harness import Identity, expect_error, expect_redirect
from shared_deployment import instance_config, shared_services
from store_servers import PostgresServer, RedisServer

#: Generous bound for a change made on one instance to be seen on the other (the cache keeps 1 s).
PROPAGATION_DEADLINE = 10
#: Bound for the instances to notice that a store is back.
RECOVERY_DEADLINE = 30
#: Per-request timeout while a store is down: a typed 503 must come well before this (no hang).
DOWN_TIMEOUT = 20

APPLE_CLIENT_ID = "com.example.sandbox.web"  # the sandbox's demo Apple client (SandboxIdentityProvider)
GOOGLE_ANDROID_CLIENT = "987-android.apps.googleusercontent.com"  # `native_clients` of the google provider


class Upstream(requests.adapters.HTTPAdapter):
    """Sends requests for the public URL to `target` (one instance's listener) with the public `Host`,
    and hands the response back as if the public URL had answered."""

    def __init__(self, public_url: str, target: str):
        super().__init__()
        self.public = public_url.rstrip("/")
        self.target = target

    def send(self, request, **kwargs):  # noqa: ANN001 (requests' signature)
        routed = request.copy()
        routed.url = self.target + request.url[len(self.public):]
        routed.headers["Host"] = urlsplit(self.public).netloc
        response = super().send(routed, **kwargs)
        response.url = request.url
        response.request = request
        return response


@dataclass
class Deployment:
    public_url: str
    sandbox_url: str
    a: harness.ServerProcess
    b: harness.ServerProcess
    postgres: PostgresServer
    redis: RedisServer
    google_client_id: str

    def visitor(self, name: str, via: harness.ServerProcess | None = None) -> "Visitor":
        return Visitor(self, name, via or self.a)

    def notify_apple(self, kind: str, subject: str, instance: harness.ServerProcess) -> dict:
        """The sandbox signs an Apple notification and POSTs it to `instance` directly."""
        response = harness.direct.post(
            self.sandbox_url + "/_sandbox/apple/notify",
            data={"type": kind, "sub": subject, "client_id": APPLE_CLIENT_ID,
                  "to": instance.listen_url + "/auth/apple/notifications"},
            timeout=harness.HTTP_TIMEOUT)
        assert response.status_code == 200, f"sandbox notify: {response.status_code} {response.text[:300]}"
        return response.json()

    def users(self) -> dict[str, set[tuple[str, str]]]:
        """Every user in PostgreSQL with its identities `(provider, subject)`."""
        users: dict[str, set[tuple[str, str]]] = {}
        for row in self.postgres.query(
                "SELECT u.id, coalesce(i.provider, ''), coalesce(i.subject, '') FROM users u "
                "LEFT JOIN identities i ON i.user_id = u.id"):
            identities = users.setdefault(row[0], set())
            if row[1]:
                identities.add((row[1], row[2]))
        return users


class Visitor:
    """A browser whose requests to the public URL reach the instance chosen with `on()`."""

    def __init__(self, deployment: Deployment, name: str, via: harness.ServerProcess):
        self.browser = harness.Browser(deployment.public_url, deployment.sandbox_url, name=name)
        self.upstream = Upstream(deployment.public_url, via.listen_url)
        self.browser.session.mount(deployment.public_url + "/", self.upstream)

    def on(self, instance: harness.ServerProcess) -> harness.Browser:
        self.upstream.target = instance.listen_url
        return self.browser

    def copy_cookies_to(self, other: "Visitor") -> None:
        for cookie in self.browser.session.cookies:
            other.browser.session.cookies.set_cookie(cookie)


def wait_for(description: str, probe, deadline_seconds: float):
    """Calls `probe()` until it returns something other than None or False (a `requests.Response` counts,
    whatever its status) or the deadline passes; returns that value."""
    deadline = time.monotonic() + deadline_seconds
    last = None
    while True:
        last = probe()
        if last is not None and last is not False:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"{description}: not seen within {deadline_seconds} s (last: {last!r})")
        time.sleep(0.1)


def status_of(response: requests.Response) -> str:
    return f"{response.status_code} {response.text[:200]!r}"


def health(instance: harness.ServerProcess) -> requests.Response:
    return harness.direct.get(instance.listen_url + "/healthz", timeout=DOWN_TIMEOUT)


def expect_unavailable(response: requests.Response, context: str) -> dict:
    return expect_error(response, "store_unavailable", statuses=(503,), context=context)


# ---------------------------------------------------------------------------------------------
# The deployment
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deployment(module_servers, tmp_path_factory):
    public_port = harness.free_port()  # nothing listens there: the Upstream adapter routes around it
    public_url = f"http://localhost:{public_port}"
    work = tmp_path_factory.mktemp("instances")
    with shared_services(work, public_url) as services:
        # Native sign-in for Google: the Android client presents tokens issued to the server's client id.
        fragment = with_native_google_client(services.fragment)
        secret = secrets.token_hex(32)

        def instance(label: str) -> harness.ServerProcess:
            folder = work / label
            folder.mkdir()
            config = folder / "providers.yaml"
            config.write_text(instance_config(services, [
                f"  listen: 127.0.0.1:{harness.free_port()}",
                f"  public_url: {public_url}",
                f"  secret: {secret}",
                "  allowed_return_to: [/]",
                "  session_ttl: 1h",
            ], fragment))
            return module_servers.start(config, sandbox=False, label=label)

        yield Deployment(public_url=public_url, sandbox_url=services.sandbox_url, a=instance("A"), b=instance("B"),
                         postgres=services.postgres, redis=services.redis,
                         google_client_id=google_client_id(fragment))
        module_servers.stop_all()


def with_native_google_client(fragment: str) -> str:
    """The fragment with the Android client as a `native_clients` entry of its google provider."""
    return fragment.replace("  google:\n", f"  google:\n    native_clients: [{GOOGLE_ANDROID_CLIENT}]\n", 1)


def google_client_id(fragment: str) -> str:
    """The server's client id at the fragment's google provider."""
    return fragment[fragment.index("\n  google:\n"):].split('client_id: "', 1)[1].split('"', 1)[0]


# ---------------------------------------------------------------------------------------------
# Sharing state between the instances
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["google", "apple"])
def test_sign_in_started_on_a_completes_on_b(deployment, provider):
    visitor = deployment.visitor(f"cross-{provider}")
    browser = visitor.on(deployment.a)
    identity = Identity.fresh(provider, name="Dorothy Vaughan")
    flow = browser.start(provider)
    assert any(header.split("=", 1)[0].strip() for header in harness.set_cookie_headers(flow.start)), \
        "the login redirect sets the flow cookie"
    browser.consent(flow, identity)
    callback = browser.callback_from(flow)

    browser = visitor.on(deployment.b)
    flow.result = browser.deliver(callback, flow=flow)
    expect_redirect(flow.result, "/", context=f"{provider} callback on B for a sign-in started on A")
    on_b = browser.session_info()
    assert on_b.status_code == 200, status_of(on_b)
    assert on_b.json()["subject"] == identity.subject
    on_a = visitor.on(deployment.a).session_info()
    assert on_a.status_code == 200, status_of(on_a)
    assert on_a.json()["user_id"] == on_b.json()["user_id"]


def native_google_body(deployment, instance: harness.ServerProcess) -> dict:
    """The body of a native Google sign-in of a fresh identity, with a nonce `instance` issued."""
    nonce_answer = harness.direct.post(instance.listen_url + "/auth/google/native/nonce",
                                       timeout=harness.HTTP_TIMEOUT)
    assert nonce_answer.status_code == 200, status_of(nonce_answer)
    nonce = nonce_answer.json()["nonce"]
    hashed = hashlib.sha256(nonce.encode()).hexdigest()
    token = harness.direct.post(
        deployment.sandbox_url + "/_sandbox/google/native",
        json={"identity": {"subject": "native-" + secrets.token_hex(6), "email": "katherine@example.com",
                           "given_name": "Katherine", "family_name": "Johnson"},
              "audience": deployment.google_client_id, "authorized_party": GOOGLE_ANDROID_CLIENT,
              "nonce": hashed},
        timeout=harness.HTTP_TIMEOUT)
    assert token.status_code == 200, status_of(token)
    return {"id_token": token.json()["id_token"], "nonce": nonce}


def test_native_nonce_issued_by_a_is_accepted_once_by_either_instance(deployment):
    body = native_google_body(deployment, deployment.a)

    signed_in = harness.direct.post(deployment.b.listen_url + "/auth/google/native", json=body,
                                    timeout=harness.HTTP_TIMEOUT)
    assert signed_in.status_code == 200, status_of(signed_in)
    assert "Set-Cookie" not in signed_in.headers
    session = signed_in.json()
    assert session["token_type"] == "Bearer" and session["name"] == "Katherine Johnson"

    for instance in (deployment.a, deployment.b):
        replay = harness.direct.post(instance.listen_url + "/auth/google/native", json=body,
                                     timeout=harness.HTTP_TIMEOUT)
        expect_error(replay, "nonce_reused", statuses=(409,), context=f"the same token again on {instance.label}")

    # The bearer B issued works on A, and a logout on A ends it on B.
    bearer = {"Authorization": "Bearer " + session["session_token"]}
    on_a = harness.direct.get(deployment.a.listen_url + "/auth/session", headers=bearer, timeout=harness.HTTP_TIMEOUT)
    assert on_a.status_code == 200 and on_a.json()["user_id"] == session["user_id"], status_of(on_a)
    logout = harness.direct.post(deployment.a.listen_url + "/auth/logout", headers=bearer,
                                 timeout=harness.HTTP_TIMEOUT)
    assert logout.status_code == 204, status_of(logout)
    wait_for("B refusing the bearer A logged out",
             lambda: harness.direct.get(deployment.b.listen_url + "/auth/session", headers=bearer,
                                        timeout=harness.HTTP_TIMEOUT).status_code == 401,
             PROPAGATION_DEADLINE)


def test_a_bearer_refreshed_on_a_and_presented_again_on_b_ends_its_chain_on_both(deployment):
    signed_in = harness.direct.post(deployment.a.listen_url + "/auth/google/native",
                                    json=native_google_body(deployment, deployment.a), timeout=harness.HTTP_TIMEOUT)
    assert signed_in.status_code == 200, status_of(signed_in)
    first = signed_in.json()["session_token"]
    refreshed = harness.direct.post(deployment.a.listen_url + "/auth/session/refresh",
                                    headers={"Authorization": "Bearer " + first}, timeout=harness.HTTP_TIMEOUT)
    assert refreshed.status_code == 200, status_of(refreshed)
    newest = refreshed.json()["session_token"]

    def session_status(instance: harness.ServerProcess, token: str) -> int:
        return harness.direct.get(instance.listen_url + "/auth/session", headers={"Authorization": "Bearer " + token},
                                  timeout=harness.HTTP_TIMEOUT).status_code

    assert [session_status(instance, newest) for instance in (deployment.a, deployment.b)] == [200, 200]
    # The replaced token, presented again on B (someone else may hold it), ends the newest token on both.
    replay = harness.direct.get(deployment.b.listen_url + "/auth/session",
                                headers={"Authorization": "Bearer " + first}, timeout=harness.HTTP_TIMEOUT)
    expect_error(replay, "not_signed_in", statuses=(401,), context="a rotated bearer presented again on B")
    assert session_status(deployment.b, newest) == 401
    wait_for("A refusing the newest token of the ended chain", lambda: session_status(deployment.a, newest) == 401,
             PROPAGATION_DEADLINE)
    logged = deployment.b.stderr_path.read_text(errors="replace")
    assert "bearer refresh token reused; chain ended" in logged, deployment.b.diagnostics()
    for instance in (deployment.a, deployment.b):
        text = instance.stderr_path.read_text(errors="replace")
        assert first not in text and newest not in text, f"{instance.label} logged a bearer token"


def test_session_made_on_a_is_valid_on_b_and_logout_on_b_ends_it_on_a(deployment):
    visitor = deployment.visitor("session")
    session = visitor.on(deployment.a).signed_in("google", Identity.fresh("google"))

    browser = visitor.on(deployment.b)
    check = browser.check()
    assert check.status_code == 202, status_of(check)
    assert check.headers.get("X-Auth-User") == session["user_id"]
    on_b = browser.session_info()
    assert on_b.status_code == 200 and on_b.json()["user_id"] == session["user_id"], status_of(on_b)

    # Another tab keeps the cookie the logout clears; A has just answered it from its store (and cache).
    other_tab = deployment.visitor("session, other tab")
    visitor.copy_cookies_to(other_tab)
    assert other_tab.on(deployment.a).check().status_code == 202

    logout = visitor.on(deployment.b).logout()
    assert logout.status_code == 204, status_of(logout)
    on_a = other_tab.on(deployment.a)
    wait_for("A refusing the session B logged out", lambda: on_a.check().status_code == 401,
             PROPAGATION_DEADLINE)
    assert on_a.session_info().status_code == 401
    assert other_tab.on(deployment.b).check().status_code == 401


def list_sessions(browser: harness.Browser) -> list[dict]:
    response = browser.get(f"{browser.prefix}/sessions", initiator=browser.app, navigation=False,
                           headers={"Accept": "application/json"})
    assert response.status_code == 200, status_of(response)
    return response.json()["sessions"]


def test_sessions_listed_on_a_and_one_revoked_on_b_is_refused_by_both(deployment):
    identity = Identity.fresh("google")
    laptop = deployment.visitor("sessions, laptop")
    laptop.on(deployment.a).signed_in("google", identity)
    phone = deployment.visitor("sessions, phone")
    phone.on(deployment.b).signed_in("google", identity)
    # Each instance has the phone's session in its cache.
    for instance in (deployment.a, deployment.b):
        assert phone.on(instance).check().status_code == 202

    listed = list_sessions(laptop.on(deployment.a))
    assert len(listed) == 2, listed
    assert [item["current"] for item in listed].count(True) == 1, listed
    cookies = {cookie.value for cookie in laptop.browser.session.cookies}
    assert not cookies & {item["id"] for item in listed}, "a listed id is a session token"
    other = next(item["id"] for item in listed if not item["current"])
    # B lists the same ids (they depend on the shared secret and store only).
    assert {item["id"] for item in list_sessions(laptop.on(deployment.b))} == {item["id"] for item in listed}

    on_b = laptop.on(deployment.b)
    revoked = on_b.post(f"{on_b.prefix}/sessions/revoke", initiator=on_b.app, navigation=False,
                        data=json.dumps({"id": other}), headers={"Content-Type": "application/json"})
    assert revoked.status_code == 204, status_of(revoked)
    # B, which revoked it, refuses it at once; A within its cache's lifetime.
    assert phone.on(deployment.b).check().status_code == 401
    wait_for("A refusing the session B revoked", lambda: phone.on(deployment.a).check().status_code == 401,
             PROPAGATION_DEADLINE)
    assert phone.on(deployment.a).session_info().status_code == 401
    for instance in (deployment.a, deployment.b):
        assert laptop.on(instance).check().status_code == 202
    assert [item["id"] for item in list_sessions(laptop.on(deployment.a))] != [other]
    assert len(list_sessions(laptop.on(deployment.a))) == 1
    again = on_b.post(f"{on_b.prefix}/sessions/revoke", initiator=on_b.app, navigation=False,
                      data=json.dumps({"id": other}), headers={"Content-Type": "application/json"})
    expect_error(again, "session_not_found", (404,), context="revoking a revoked session")


def test_apple_notification_posted_to_a_ends_the_users_sessions_on_b(deployment):
    identity = Identity.fresh("apple", name="Annie Easley")
    visitor = deployment.visitor("apple-user", via=deployment.b)
    session = visitor.on(deployment.b).signed_in("apple", identity)
    browser = visitor.on(deployment.b)
    assert browser.check().status_code == 202

    answer = deployment.notify_apple("consent-revoked", identity.subject, deployment.a)
    assert answer.get("status") == 200, answer
    wait_for("B refusing the session A's notification ended", lambda: browser.check().status_code == 401,
             PROPAGATION_DEADLINE)
    assert browser.session_info().status_code == 401
    # The user and its identity stay: the next sign-in, on either instance, finds the same user.
    again = deployment.visitor("apple-user, again").on(deployment.a)
    assert again.signed_in("apple", identity, drop_fields=("user",))["user_id"] == session["user_id"]


def test_concurrent_first_sign_ins_of_one_identity_on_a_and_b_make_one_user(deployment):
    for round_number in range(16):
        identity = Identity.fresh("google", name=f"Race {round_number}")
        before = deployment.users()
        visitors, callbacks = [], []
        for label, instance in (("A", deployment.a), ("B", deployment.b)):
            visitor = deployment.visitor(f"race-{round_number}-{label}", via=instance)
            browser = visitor.on(instance)
            flow = browser.start("google")
            browser.consent(flow, identity)
            visitors.append((visitor, instance, flow))
            callbacks.append(browser.callback_from(flow))

        barrier = threading.Barrier(2, timeout=harness.HTTP_TIMEOUT)
        results: list = [None, None]

        def deliver(index: int) -> None:
            visitor, instance, flow = visitors[index]
            browser = visitor.on(instance)
            barrier.wait()
            try:
                results[index] = browser.deliver(callbacks[index], flow=flow)
            except Exception as error:  # noqa: BLE001 (reported by the assertions below)
                results[index] = error

        threads = [threading.Thread(target=deliver, args=(index,)) for index in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=2 * harness.HTTP_TIMEOUT)
        user_ids = set()
        for (visitor, instance, _), result in zip(visitors, results):
            assert isinstance(result, requests.Response), f"round {round_number}: {result!r}"
            expect_redirect(result, "/", context=f"round {round_number}: first sign-in on {instance.label}")
            info = visitor.on(instance).session_info()
            assert info.status_code == 200, status_of(info)
            user_ids.add(info.json()["user_id"])
        assert len(user_ids) == 1, f"round {round_number}: two users for one identity: {user_ids}"

        after = deployment.users()
        new_users = {user: identities for user, identities in after.items() if user not in before}
        assert new_users == {user_ids.pop(): {("google", identity.subject)}}, (
            f"round {round_number}: expected exactly one new user holding the identity, found {new_users}")


# ---------------------------------------------------------------------------------------------
# Stopping and restarting the stores under running instances
# ---------------------------------------------------------------------------------------------


def started_flow(deployment: Deployment, name: str, instance: harness.ServerProcess, identity: Identity):
    """A sign-in started and consented on `instance`, its callback not yet delivered."""
    visitor = deployment.visitor(name, via=instance)
    browser = visitor.on(instance)
    flow = browser.start("google")
    browser.consent(flow, identity)
    return visitor, flow, browser.callback_from(flow)


def test_redis_stopped_gives_typed_503s_and_restarted_works_again_without_restarting_the_instances(deployment):
    a, b = deployment.a, deployment.b
    signed_in = deployment.visitor("before-redis-outage")
    session = signed_in.on(a).signed_in("google", Identity.fresh("google"))
    apple_identity = Identity.fresh("apple")
    apple_user = deployment.visitor("apple-over-redis-outage")
    apple_user.on(b).signed_in("apple", apple_identity)
    pending_identity = Identity.fresh("google")
    pending, pending_flow, pending_callback = started_flow(deployment, "pending-over-redis-outage", a,
                                                           pending_identity)

    deployment.redis.stop()
    try:
        for instance in (a, b):
            response = health(instance)
            assert response.status_code == 503, f"/healthz on {instance.label}: {status_of(response)}"
            assert response.json().get("status") == "unavailable", response.text
            assert response.json().get("store") == "sessions", f"/healthz names the session store: {response.text}"
            assert response.json().get("backend") == "redis", f"/healthz names the backend: {response.text}"

            browser = signed_in.on(instance)
            check = wait_for(f"/auth/check on {instance.label} answering 503",
                             lambda: (lambda r: r if r.status_code != 202 else None)(
                                 browser.request("GET", browser.app + "/auth/check", navigation=False,
                                                 timeout=DOWN_TIMEOUT)),
                             PROPAGATION_DEADLINE)
            expect_unavailable(check, f"/auth/check on {instance.label} with Redis down")
            expect_unavailable(browser.request("GET", browser.app + "/auth/session", initiator=browser.app,
                                               navigation=False, headers={"Accept": "application/json"},
                                               timeout=DOWN_TIMEOUT),
                               f"/auth/session on {instance.label} with Redis down")

            start = deployment.visitor(f"start-during-redis-outage-{instance.label}").on(instance)
            expect_unavailable(start.request("GET", start.app + "/auth/google/login?return_to=%2F",
                                             initiator=start.app, timeout=DOWN_TIMEOUT),
                               f"sign-in start on {instance.label} with Redis down")

        browser = pending.on(b)
        refused = browser.deliver(pending_callback, flow=pending_flow)
        expect_unavailable(refused, "callback on B with Redis down")
        # A logout that cannot reach the session store says so, and keeps the cookie (checked after the restart).
        expect_unavailable(signed_in.on(a).logout(), "logout on A with Redis down")
        # A notification that ends sessions is refused with 503 (Apple retries it later), not acknowledged.
        answer = deployment.notify_apple("consent-revoked", apple_identity.subject, b)
        assert answer.get("status") == 503, f"notification to B with Redis down: {answer}"
    finally:
        deployment.redis.start()

    for instance in (a, b):
        wait_for(f"/healthz on {instance.label} after Redis is back",
                 lambda: health(instance).status_code == 200, RECOVERY_DEADLINE)
    # The callback refused while Redis was down spent nothing: delivered again, it completes.
    browser = pending.on(b)
    expect_redirect(browser.deliver(pending_callback, flow=pending_flow), "/",
                    context="the callback refused during the outage, delivered again")
    assert browser.session_info().json()["subject"] == pending_identity.subject
    # Sessions kept in Redis (append-only file) are still valid on both instances.
    for instance in (a, b):
        check = signed_in.on(instance).check()
        assert check.status_code == 202, f"{instance.label}: {status_of(check)}"
        assert check.headers.get("X-Auth-User") == session["user_id"]
    # The refused notification ended nothing; Apple's retry, now that Redis is back, does.
    assert apple_user.on(a).check().status_code == 202
    assert deployment.notify_apple("consent-revoked", apple_identity.subject, b).get("status") == 200
    wait_for("A refusing the session the retried notification ended",
             lambda: apple_user.on(a).check().status_code == 401, PROPAGATION_DEADLINE)
    # New sign-ins work on both.
    for instance in (a, b):
        fresh = deployment.visitor(f"after-redis-outage-{instance.label}", via=instance).on(instance)
        assert fresh.signed_in("google", Identity.fresh("google"))["provider"] == "google"


def test_postgres_stopped_gives_typed_503s_and_restarted_works_again_with_no_account_lost(deployment):
    a, b = deployment.a, deployment.b
    returning_identity = Identity.fresh("google", name="Returning User")
    returning = deployment.visitor("returning-before-postgres-outage")
    user_id = returning.on(b).signed_in("google", returning_identity)["user_id"]
    signed_in = deployment.visitor("signed-in-over-postgres-outage")
    session = signed_in.on(a).signed_in("google", Identity.fresh("google"))
    accounts_before = deployment.users()
    assert accounts_before[user_id] == {("google", returning_identity.subject)}
    pending, pending_flow, pending_callback = started_flow(deployment, "pending-over-postgres-outage", b,
                                                           Identity.fresh("google"))

    deployment.postgres.stop()
    try:
        for instance in (a, b):
            response = health(instance)
            assert response.status_code == 503, f"/healthz on {instance.label}: {status_of(response)}"
            assert response.json().get("store") == "accounts", f"/healthz names the account store: {response.text}"
            assert response.json().get("backend") == "postgres", f"/healthz names the backend: {response.text}"

            browser = signed_in.on(instance)
            check = wait_for(f"/auth/check on {instance.label} answering 503",
                             lambda: (lambda r: r if r.status_code != 202 else None)(
                                 browser.request("GET", browser.app + "/auth/check", navigation=False,
                                                 timeout=DOWN_TIMEOUT)),
                             PROPAGATION_DEADLINE)
            expect_unavailable(check, f"/auth/check on {instance.label} with PostgreSQL down")
            # A sign-in start writes nothing to PostgreSQL (the flow record travels in the cookie; the rate-limit
            # counters are in Redis), so it still redirects to the provider.
            start = deployment.visitor(f"start-during-postgres-outage-{instance.label}").on(instance)
            start.start("google")

        browser = pending.on(a)
        expect_unavailable(browser.deliver(pending_callback, flow=pending_flow),
                           "callback on A with PostgreSQL down")
        # A new first sign-in cannot complete either, and leaves no user behind (checked after the restart).
        lost_identity = Identity.fresh("google")
        lost, lost_flow, lost_callback = started_flow(deployment, "first-sign-in-during-postgres-outage", b,
                                                      lost_identity)
        expect_unavailable(lost.on(b).deliver(lost_callback, flow=lost_flow),
                           "first sign-in on B with PostgreSQL down")
        # Apple's notification is refused with 503 (Apple retries it later), not acknowledged and lost.
        answer = deployment.notify_apple("consent-revoked", "001234.unknown.0000", a)
        assert answer.get("status") == 503, f"notification to A with PostgreSQL down: {answer}"
    finally:
        deployment.postgres.start()

    for instance in (a, b):
        wait_for(f"/healthz on {instance.label} after PostgreSQL is back",
                 lambda: health(instance).status_code == 200, RECOVERY_DEADLINE)
    accounts_after = deployment.users()
    lost_accounts = {user: identities for user, identities in accounts_before.items()
                     if accounts_after.get(user) != identities}
    assert not lost_accounts, f"accounts changed or lost over the outage: {lost_accounts}"
    assert not any(("google", lost_identity.subject) in identities for identities in accounts_after.values()), \
        "a sign-in refused during the outage left an identity behind"
    for instance in (a, b):
        check = signed_in.on(instance).check()
        assert check.status_code == 202, f"{instance.label}: {status_of(check)}"
        assert check.headers.get("X-Auth-User") == session["user_id"]
    # The returning user signs in again, on either instance, to the same account.
    for instance in (a, b):
        again = deployment.visitor(f"returning-after-{instance.label}", via=instance).on(instance)
        assert again.signed_in("google", returning_identity)["user_id"] == user_id
    fresh = deployment.visitor("first-sign-in-after-postgres-outage", via=a).on(a)
    assert fresh.signed_in("google", Identity.fresh("google"))["provider"] == "google"
