# Shared set-up for scripts/test.sh and scripts/demo.sh: installs what AuthFlow needs on a
# Debian machine, once. Sourced, not run.

# System packages: the C libraries AuthFlow wraps, the browser used by the end-to-end test, the
# PostgreSQL and Redis servers the store tests start throwaway instances of, nginx and openssl for the
# nginx example's test, systemd (systemd-analyze) for the release check of the unit, procps (pgrep)
# for the store-stall test, prometheus (promtool) for the alerting rules of examples/prometheus, and
# glewlwyd, a third-party OpenID Provider the end-to-end tests sign in to (Tests/e2e/test_glewlwyd.py).
AUTHFLOW_APT_PACKAGES=(
    pkg-config libssl-dev libcurl4-openssl-dev libyaml-dev libmicrohttpd-dev libsqlite3-dev libpq-dev
    libhiredis-dev
)
AUTHFLOW_APT_TEST_PACKAGES=(chromium chromium-driver postgresql redis-server nginx openssl systemd procps
    prometheus glewlwyd)

af_as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ensure_apt_packages PKG...: installs the packages that are not installed yet.
ensure_apt_packages() {
    local missing=()
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$pkg")
        fi
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "==> installing system packages: ${missing[*]}"
        af_as_root apt-get update -qq
        af_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# ensure_python_venv: a virtual environment in .venv with the Python test peers.
ensure_python_venv() {
    if ! command -v python3 >/dev/null 2>&1; then
        ensure_apt_packages python3 python3-venv
    fi
    if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys' >/dev/null 2>&1; then
        rm -rf .venv
        if ! python3 -m venv .venv >/dev/null 2>&1; then
            ensure_apt_packages python3-venv
            python3 -m venv .venv
        fi
    fi
    if ! cmp -s Tests/e2e/requirements.txt .venv/.requirements 2>/dev/null; then
        echo "==> installing Python test peers into .venv"
        .venv/bin/python -m pip install -q --disable-pip-version-check -r Tests/e2e/requirements.txt
        cp Tests/e2e/requirements.txt .venv/.requirements
    fi
}
