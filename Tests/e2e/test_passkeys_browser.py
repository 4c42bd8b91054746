"""Passkeys in a real browser: headless Chromium with its DevTools virtual authenticator (CTAP2, resident keys,
user verification) on the demo page of `authflow serve --sandbox`: sign up with a passkey, sign out, sign in with
it, add a passkey to an account made with Google through the sandbox and sign in with it, and link Google to an
account made with a passkey and sign in with Google."""

from __future__ import annotations

import pytest

from authflow_harness import Identity
from test_browser import click_and_follow, driver, element, wait_for  # noqa: F401 (driver is a fixture)

pytestmark = pytest.mark.browser

PASSKEY = "  passkey:\n    type: passkey\n"


@pytest.fixture
def app(servers):
    return servers.launch(providers=("google",), extra_providers=PASSKEY)


def virtual_authenticator(driver):
    from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
    options = VirtualAuthenticatorOptions()
    options.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
    options.transport = VirtualAuthenticatorOptions.Transport.INTERNAL
    options.has_resident_key = True
    options.has_user_verification = True
    options.is_user_verified = True
    driver.add_virtual_authenticator(options)


def signed_in_as(driver, provider: str) -> str:
    from selenium.webdriver.common.by import By
    wait_for(driver, lambda d: element(d, "#identity") and d.find_element(By.ID, "provider").text == provider,
             f"the home page signed in with {provider}")
    return driver.find_element(By.ID, "user_id").text.strip()


def sign_out(driver) -> None:
    from selenium.webdriver.common.by import By
    click_and_follow(driver.find_element(By.ID, "signout"))
    wait_for(driver, lambda d: element(d, "#passkey-signin-passkey") and not element(d, "#identity"),
             "the signed-out home page")


def passkeys_of_session(driver) -> list:
    return driver.execute_async_script(
        "const done = arguments[0];"
        "fetch('/auth/passkey/credentials', {credentials: 'same-origin'}).then(r => r.json())"
        ".then(j => done(j.credentials), e => done(String(e)));")


def test_sign_up_sign_out_and_sign_in_with_a_passkey(driver, app):
    from selenium.webdriver.common.by import By
    driver.delete_all_cookies()
    virtual_authenticator(driver)
    try:
        driver.get(app.app_url + "/")
        field = wait_for(driver, lambda d: element(d, "#passkey-name"), "the passkey name field")
        field.send_keys("ada@example.com")
        driver.find_element(By.ID, "passkey-signup-passkey").click()
        user = signed_in_as(driver, "passkey")
        assert len(passkeys_of_session(driver)) == 1
        sign_out(driver)
        driver.find_element(By.ID, "passkey-signin-passkey").click()
        assert signed_in_as(driver, "passkey") == user
        sign_out(driver)
    finally:
        driver.remove_virtual_authenticator()


def test_a_passkey_joins_an_account_made_with_google(driver, app):
    from selenium.webdriver.common.by import By
    driver.delete_all_cookies()
    virtual_authenticator(driver)
    try:
        identity = Identity.fresh("google", name="Katherine Johnson")
        driver.get(app.app_url + "/")
        click_and_follow(wait_for(driver, lambda d: element(d, "#signin-google"), "#signin-google"))
        consent_as(driver, app, identity)
        user = signed_in_as(driver, "google")
        wait_for(driver, lambda d: element(d, "#passkey-add-passkey"), "the Add a passkey button").click()
        wait_for(driver, lambda d: len(passkeys_of_session(d)) == 1, "the passkey in the account")
        sign_out(driver)
        driver.find_element(By.ID, "passkey-signin-passkey").click()
        assert signed_in_as(driver, "passkey") == user
    finally:
        driver.remove_virtual_authenticator()


def consent_as(driver, app, identity) -> None:
    """On the sandbox's consent page, send `identity` (a custom one) back to the app."""
    from selenium.webdriver.common.by import By
    wait_for(driver, lambda d: d.current_url.startswith(app.sandbox_url) and element(d, "#allow"),
             "the sandbox consent page")
    driver.find_element(By.CSS_SELECTOR, 'input[name="identity"][value="custom"]').click()
    for name, value in (("subject", identity.subject), ("email", identity.email), ("name", identity.name)):
        box = driver.find_element(By.CSS_SELECTOR, f'input[name="{name}"]')
        box.clear()
        box.send_keys(value)
    click_and_follow(driver.find_element(By.ID, "allow"))


def test_google_joins_an_account_made_with_a_passkey(driver, app):
    from selenium.webdriver.common.by import By
    driver.delete_all_cookies()
    virtual_authenticator(driver)
    try:
        driver.get(app.app_url + "/")
        field = wait_for(driver, lambda d: element(d, "#passkey-name"), "the passkey name field")
        field.send_keys("grace@example.com")
        driver.find_element(By.ID, "passkey-signup-passkey").click()
        user = signed_in_as(driver, "passkey")
        identity = Identity.fresh("google", name="Grace Hopper")
        driver.get(app.app_url + "/auth/google/link?return_to=/")
        consent_as(driver, app, identity)
        wait_for(driver, lambda d: d.current_url.startswith(app.app_url) and element(d, "#identity"),
                 "the home page after linking Google")
        sign_out(driver)
        click_and_follow(wait_for(driver, lambda d: element(d, "#signin-google"), "#signin-google"))
        consent_as(driver, app, identity)
        assert signed_in_as(driver, "google") == user
    finally:
        driver.remove_virtual_authenticator()
