"""The audit trail of `authflow serve` (`server.audit_log`, docs/audit.md) as an operator sees it: the lines of a
sign-in and a sign-out with their schema, no credential anywhere in the file, and log rotation (rename the file,
SIGHUP, the next events land in a new file at the configured name)."""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path

import authflow_harness as harness

DEADLINE = 30.0


def events(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wait_for_events(path: Path, kinds: list[str]) -> list[dict]:
    """The events of `path` once each kind of `kinds` is among them (as many times as listed)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        found = events(path)
        seen = [event["event"] for event in found]
        if all(seen.count(kind) >= kinds.count(kind) for kind in kinds):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"expected {kinds} in {path} within {DEADLINE} s, found {seen}")
        time.sleep(0.05)


def check_common(event: dict) -> None:
    assert event["version"] == 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", event["time"]), event["time"]
    for key in ("request_id", "client_address", "user_id", "provider", "outcome", "code", "actor"):
        assert key in event, f"{key} missing from {event}"


def test_sign_in_and_sign_out_are_written_and_the_file_rotates_on_sighup(servers):
    config, _ = servers.config(server_extra="  audit_log: audit.jsonl")
    audit = config.parent / "audit.jsonl"  # a relative name is relative to the configuration file
    app = servers.start(config)
    browser = app.browser()
    session = browser.signed_in("google", harness.Identity.fresh("google"))
    user = session["user_id"]

    first = wait_for_events(audit, ["account.created", "sign_in.succeeded"])
    signed_in = next(event for event in first if event["event"] == "sign_in.succeeded")
    check_common(signed_in)
    assert signed_in["user_id"] == user
    assert signed_in["provider"] == "google"
    assert signed_in["outcome"] == "success" and signed_in["code"] is None
    assert signed_in["client_address"] == "127.0.0.1"
    assert signed_in["session_kind"] == "cookie"
    assert audit.stat().st_mode & 0o777 == 0o600

    # Rotation: rename, SIGHUP; the server creates the file again at the configured name.
    rotated = config.parent / "audit.jsonl.1"
    audit.rename(rotated)
    app.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + DEADLINE
    while not audit.exists():
        assert time.monotonic() < deadline, "the audit file was not reopened after SIGHUP"
        time.sleep(0.05)
    assert app.process.poll() is None, "SIGHUP must not stop the server"

    cookies = [cookie.value for cookie in browser.session.cookies if cookie.value]
    logout = browser.session.post(app.app_url + "/auth/logout", headers={"Origin": app.app_url},
                                  timeout=harness.HTTP_TIMEOUT)
    assert logout.status_code == 204, logout.text
    second = wait_for_events(audit, ["session.revoked"])
    revoked = second[0]
    check_common(revoked)
    assert revoked["event"] == "session.revoked"
    assert revoked["actor"] == "user" and revoked["scope"] == "session" and revoked["user_id"] == user
    assert all(event["event"] != "session.revoked" for event in events(rotated))

    # No session cookie (nor any other cookie the browser held) in either file.
    text = audit.read_text() + rotated.read_text()
    for value in cookies:
        if len(value) >= 16:
            assert value not in text, "a cookie value is in the audit trail"
