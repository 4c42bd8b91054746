"""A real browser signs in: headless Chromium (Debian's /usr/bin/chromium and /usr/bin/chromedriver)
driven by Selenium, with a new temporary profile, against `authflow serve --sandbox`. The app is at
http://localhost:P and the sandbox at http://127.0.0.1:P2, so Apple's form_post callback is a real
cross-site POST and the flow cookie's SameSite=Lax rules apply exactly as in production."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

import authflow_harness as harness
from authflow_harness import Identity, missing

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("AUTHFLOW_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("AUTHFLOW_CHROMEDRIVER", "/usr/bin/chromedriver")
WAIT = 20  # seconds for any page to reach the expected state


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError as error:
        missing(f"selenium is not installed in this Python ({error})")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            missing(f"{path} is not installed (Debian packages chromium and chromium-driver)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                     "--disable-background-networking", "--disable-sync", "--disable-component-update",
                     "--password-store=basic", "--window-size=1200,900", f"--user-data-dir={profile}"):
        options.add_argument(argument)
    log = tmp_path_factory.mktemp("chromedriver") / "chromedriver.log"
    service = Service(executable_path=CHROMEDRIVER, log_output=str(log))
    browser = webdriver.Chrome(service=service, options=options)
    browser.set_page_load_timeout(WAIT)
    browser.set_script_timeout(WAIT)
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture(scope="module")
def screenshots():
    directory = Path(tempfile.mkdtemp(prefix="authflow-e2e-screenshots-"))
    yield directory
    if not any(directory.iterdir()):
        shutil.rmtree(directory, ignore_errors=True)


# What WebDriver raises when it is asked about a page that is being replaced. Apple's sign-in goes through
# two auto-submitting pages (the sandbox's form_post page, then the app's same-site re-POST) within one
# click, so a poll can land between two documents: the old one's elements are stale, or the new one has no
# execution context yet. Those polls mean "not there yet", never a failure.
NAVIGATING = ("no such execution context", "cannot determine loading status", "target frame detached",
              "frame was detached", "Execution context was destroyed", "Inspected target navigated or closed")


def settled(condition):
    """`condition`, answering False (poll again) while the page is mid-navigation."""
    from selenium.common.exceptions import (JavascriptException, NoSuchElementException,
                                            StaleElementReferenceException, WebDriverException)

    def check(driver):
        try:
            return condition(driver)
        except (StaleElementReferenceException, NoSuchElementException, JavascriptException):
            return False
        except WebDriverException as error:
            if any(text in str(error) for text in NAVIGATING):
                return False
            raise
    return check


def wait_for(driver, condition, what: str):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.1).until(settled(condition))
    except TimeoutException:
        raise AssertionError(f"timed out after {WAIT} s waiting for {what}; at {driver.current_url}: "
                             f"{driver.page_source[:1500]}") from None


def click_and_follow(button) -> None:
    """Clicks a button that starts a chain of navigations. WebDriver's click waits for the navigation it
    started; when the chain outlasts the page-load timeout on a loaded machine, that wait gives up with a
    TimeoutException although the browser carries on. The caller's `wait_for` decides what happened."""
    from selenium.common.exceptions import TimeoutException
    try:
        button.click()
    except TimeoutException:
        pass


def element(driver, selector: str):
    from selenium.webdriver.common.by import By
    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return found[0] if found else None


def sign_in_and_out(driver, app, provider: str, identity: Identity) -> None:
    """The whole visit: sign in through the consent page, check the demo page, sign out."""
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    driver.get(app.app_url + "/")
    link = wait_for(driver, lambda d: element(d, f"#signin-{provider}"), f"#signin-{provider}")
    click_and_follow(link)
    # The sandbox's consent page, on the other site.
    wait_for(driver, lambda d: d.current_url.startswith(app.sandbox_url) and element(d, "#allow"),
             "the sandbox consent page")
    driver.find_element(By.CSS_SELECTOR, 'input[name="identity"][value="custom"]').click()
    for name, value in (("subject", identity.subject), ("email", identity.email), ("name", identity.name)):
        field = driver.find_element(By.CSS_SELECTOR, f'input[name="{name}"]')
        field.clear()
        field.send_keys(value)
    click_and_follow(driver.find_element(By.ID, "allow"))
    # Back on the app (for Apple through the form_post page and the app's same-site re-POST).
    wait_for(driver, lambda d: d.current_url.startswith(app.app_url) and element(d, "#identity"),
             "the signed-in home page")
    # (Facebook appends `#_=_` to its redirect; the browser keeps that fragment across the app's redirect.)
    assert driver.current_url.split("#", 1)[0].rstrip("/") == app.app_url
    assert driver.find_element(By.ID, "provider").text == provider
    assert driver.find_element(By.ID, "subject").text == identity.subject
    assert driver.find_element(By.ID, "name").text == identity.name
    assert driver.find_element(By.ID, "user_id").text.strip()
    steps = driver.find_elements(By.CSS_SELECTOR, "#trace > li")
    assert len(steps) >= 3, f"expected the flow's steps in #trace, found {len(steps)}"
    assert all(step.text.strip() for step in steps)
    cookies = {cookie["name"]: cookie for cookie in driver.get_cookies()}
    session_cookies = [c for c in cookies.values() if c.get("httpOnly") and "session" in c["name"]]
    assert session_cookies, f"no HttpOnly session cookie: {sorted(cookies)}"
    # The page's own script cannot read the session cookie.
    assert "session" not in (driver.execute_script("return document.cookie") or "")

    click_and_follow(driver.find_element(By.ID, "signout"))
    wait_for(driver, lambda d: (element(d, f"#signin-{provider}") and not element(d, "#identity"))
             or element(d, "#error-code"), "the signed-out home page")
    assert element(driver, "#error-code") is None, f"signing out failed: {driver.page_source[:1500]}"
    # The old session cookie is dead server-side as well.
    for cookie in session_cookies:
        stale = app.browser("stale")
        stale.session.cookies.set(cookie["name"], cookie["value"])
        assert stale.session_info().status_code == 401


@pytest.mark.parametrize("provider", harness.PROVIDERS)
def test_browser_signs_in_and_out(driver, app, screenshots, provider, request):
    identity = Identity.fresh(provider, name="Dorothy Vaughan")
    try:
        sign_in_and_out(driver, app, provider, identity)
    except BaseException:
        path = screenshots / f"{request.node.name}.png"
        try:
            driver.save_screenshot(str(path))
            print(f"screenshot of the failure: {path}")
        except Exception as error:  # the browser itself may be gone
            print(f"no screenshot ({error})")
        raise


@pytest.fixture
def busy_machine(app):
    """A loaded machine while the test runs: one CPU burner per core (plus one) in other processes, and
    four clients asking the same app for its pages, the session, a favicon and the health check in a loop,
    so the browser's requests queue behind others and the sandbox's pages answer late."""
    import requests

    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
               for _ in range((os.cpu_count() or 2) + 1)]
    stop = threading.Event()

    def hammer() -> None:
        client = requests.Session()
        while not stop.is_set():
            for path in ("/", "/auth/session", "/favicon.ico", "/healthz"):
                try:
                    client.get(app.app_url + path, timeout=5)
                except requests.RequestException:
                    pass
    clients = [threading.Thread(target=hammer, daemon=True) for _ in range(4)]
    for client in clients:
        client.start()
    try:
        yield
    finally:
        stop.set()
        for burner in burners:
            burner.kill()
            burner.wait()
        for client in clients:
            client.join(timeout=10)


UNDER_LOAD_ROUNDS = int(os.environ.get("AUTHFLOW_BROWSER_LOAD_ROUNDS", "2"))


@pytest.mark.parametrize("provider", harness.PROVIDERS)
def test_browser_signs_in_and_out_under_load(driver, app, screenshots, busy_machine, provider, request):
    """Each provider's whole visit, several times, on a busy machine: timing-dependent failures (X's failed
    in two of three runs on a loaded machine and never on a quiet one) show up here."""
    for round_ in range(UNDER_LOAD_ROUNDS):
        identity = Identity.fresh(provider, name="Katherine Johnson")
        try:
            sign_in_and_out(driver, app, provider, identity)
        except BaseException:
            path = screenshots / f"{request.node.name}-{round_}.png"
            try:
                driver.save_screenshot(str(path))
                print(f"screenshot of the failure (round {round_}): {path}")
            except Exception as error:
                print(f"no screenshot ({error})")
            raise


def consent_in_current_tab(driver, app, identity: Identity) -> None:
    from selenium.webdriver.common.by import By

    wait_for(driver, lambda d: d.current_url.startswith(app.sandbox_url) and element(d, "#allow"),
             "the sandbox consent page")
    driver.find_element(By.CSS_SELECTOR, 'input[name="identity"][value="custom"]').click()
    for name, value in (("subject", identity.subject), ("email", identity.email), ("name", identity.name)):
        field = driver.find_element(By.CSS_SELECTOR, f'input[name="{name}"]')
        field.clear()
        field.send_keys(value)
    driver.find_element(By.ID, "allow").click()


def test_two_tabs_sign_in_with_two_providers_at_once(driver, app):
    """Each sign-in has its own flow cookie: two tabs that start sign-ins with Google and Apple (Apple's
    form_post being a cross-site POST bounced through the app's same-site page) both complete."""
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    first = driver.current_window_handle
    driver.get(app.app_url + "/auth/google/login?return_to=/")
    wait_for(driver, lambda d: d.current_url.startswith(app.sandbox_url), "google's consent page")
    driver.switch_to.new_window("tab")
    second = driver.current_window_handle
    driver.get(app.app_url + "/auth/apple/login?return_to=/")
    # (The tab is on the sandbox's site now; Chromium's DevTools protocol lists every site's cookies.)
    everything = driver.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
    flow_cookies = [c["name"] for c in everything if c["name"].startswith("authflow_flow_")]
    assert len(flow_cookies) == 2, f"expected one flow cookie per sign-in, found {flow_cookies}"

    apple = Identity.fresh("apple", name="Apple Tab")
    consent_in_current_tab(driver, app, apple)
    wait_for(driver, lambda d: d.current_url.startswith(app.app_url) and element(d, "#identity"),
             "the home page after Apple")
    assert driver.find_element(By.ID, "provider").text == "apple"
    assert driver.find_element(By.ID, "subject").text == apple.subject

    driver.switch_to.window(first)
    google = Identity.fresh("google", name="Google Tab")
    consent_in_current_tab(driver, app, google)
    wait_for(driver, lambda d: d.current_url.startswith(app.app_url) and element(d, "#identity"),
             "the home page after Google")
    assert driver.find_element(By.ID, "provider").text == "google"
    assert driver.find_element(By.ID, "subject").text == google.subject
    driver.switch_to.window(second)
    driver.close()
    driver.switch_to.window(first)


DEMO_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "images" / "demo.png"


def test_demo_explains_itself(driver, app):
    """The first page says what the sandbox is and what happens next; the result page explains every check
    it shows and keeps the account actions apart from linking. Saves the result page as docs/images/demo.png
    (the README shows it)."""
    from selenium.webdriver.common.by import By

    driver.set_window_size(1200, 900)
    driver.delete_all_cookies()
    driver.get(app.app_url + "/")
    intro = wait_for(driver, lambda d: element(d, "#intro"), "the demo's introduction").text
    for words in ("sandbox", "identity provider running on this machine", app.sandbox_url, "consent page",
                  "every check"):
        assert words in intro, f"the introduction lacks {words!r}: {intro}"

    click_and_follow(wait_for(driver, lambda d: element(d, "#signin-google"), "#signin-google"))
    consent_in_current_tab(driver, app, Identity.fresh("google", name="Ada Lovelace"))
    wait_for(driver, lambda d: d.current_url.startswith(app.app_url) and element(d, "#identity"),
             "the signed-in home page")

    shown = driver.find_elements(By.CSS_SELECTOR, ".checks code")
    assert len(shown) >= 10, f"expected the checks of a Google sign-in, found {len(shown)}"
    for code in shown:
        assert (code.get_attribute("title") or "").strip(), f"check {code.text!r} has no explanation"
    legend = {dt.text for dt in driver.find_elements(By.CSS_SELECTOR, "#checks-legend dt")}
    assert {code.text for code in shown} <= legend, f"the legend lacks {({c.text for c in shown}) - legend}"
    for name in ("browser_binding", "state_unused", "aud"):
        assert name in legend

    # Account actions sit in their own section, not under "Link another provider".
    assert element(driver, "#account #signout") and element(driver, "#account #delete-account")
    headings = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "h2")]
    assert headings.index("Your account") > headings.index("Link another provider"), headings
    assert driver.execute_script(
        "const link = document.querySelector('[id^=\"link-\"]');"
        "return link.compareDocumentPosition(document.getElementById('account')) & 4") != 0

    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1200, min(max(900, int(height) + 140), 4000))
    DEMO_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(DEMO_SCREENSHOT)), "Chromium took no screenshot"
    assert DEMO_SCREENSHOT.stat().st_size > 10_000
    driver.set_window_size(1200, 900)
    click_and_follow(driver.find_element(By.ID, "signout"))
    wait_for(driver, lambda d: element(d, "#intro"), "the signed-out home page")
