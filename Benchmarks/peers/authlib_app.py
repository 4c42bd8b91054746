"""The Python peer of the sign-in benchmark: a small Flask app signing in with authlib's OAuth client
(Google OIDC + PKCE against the sandbox's discovery document), storing the account and the session in
SQLite like `authflow serve` does, run under gunicorn.

Settings come from the environment: BENCH_DISCOVERY_URL, BENCH_CLIENT_ID, BENCH_CLIENT_SECRET,
BENCH_DATABASE, BENCH_SECRET.
"""
import hashlib
import os
import secrets
import sqlite3
import time

from authlib.integrations.flask_client import OAuth
from flask import Flask, abort, make_response, redirect, request, url_for

app = Flask(__name__)
app.secret_key = os.environ["BENCH_SECRET"]
app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Lax")

oauth = OAuth(app)
oauth.register(
    "google",
    client_id=os.environ["BENCH_CLIENT_ID"],
    client_secret=os.environ["BENCH_CLIENT_SECRET"],
    server_metadata_url=os.environ["BENCH_DISCOVERY_URL"],
    client_kwargs={"scope": "openid email profile", "code_challenge_method": "S256"},
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY, created_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS identities (
    provider TEXT NOT NULL, subject TEXT NOT NULL, user_id TEXT NOT NULL REFERENCES users(id),
    email TEXT, email_verified INTEGER NOT NULL, name TEXT, updated_at REAL NOT NULL,
    PRIMARY KEY (provider, subject));
CREATE TABLE IF NOT EXISTS sessions (
    id_digest BLOB PRIMARY KEY, user_id TEXT NOT NULL, expires_at REAL NOT NULL);
"""


# One connection per worker process, opened on first use (after gunicorn forks) and kept, as AuthFlow keeps
# its own. A connection per request (Flask's tutorial pattern) would cost this app more than the sign-in: the
# last connection to close checkpoints the write-ahead log into the database, syncs it and deletes the log.
_connection: sqlite3.Connection | None = None


def database() -> sqlite3.Connection:
    global _connection
    if _connection is None:
        connection = sqlite3.connect(os.environ["BENCH_DATABASE"], isolation_level=None)
        # The same durability as AuthFlow's SQLite store: WAL, account writes synced before they return.
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute("PRAGMA foreign_keys = ON")
        connection.executescript(SCHEMA)
        _connection = connection
    return _connection


@app.get("/login")
def login():
    return oauth.google.authorize_redirect(url_for("callback", _external=True))


@app.get("/callback")
def callback():
    token = oauth.google.authorize_access_token()  # code exchange, id_token signature and claims, nonce
    claims = token["userinfo"]
    db = database()
    now = time.time()
    db.execute("BEGIN IMMEDIATE")
    row = db.execute("SELECT user_id FROM identities WHERE provider = 'google' AND subject = ?",
                     (claims["sub"],)).fetchone()
    if row is None:
        user_id = secrets.token_urlsafe(16)
        db.execute("INSERT INTO users (id, created_at) VALUES (?, ?)", (user_id, now))
        db.execute("INSERT INTO identities VALUES ('google', ?, ?, ?, ?, ?, ?)",
                   (claims["sub"], user_id, claims.get("email"), int(bool(claims.get("email_verified"))),
                    claims.get("name"), now))
    else:
        user_id = row[0]
        db.execute("UPDATE identities SET email = ?, name = ?, updated_at = ? WHERE provider = 'google' AND "
                   "subject = ?", (claims.get("email"), claims.get("name"), now, claims["sub"]))
    session_id = secrets.token_urlsafe(32)
    db.execute("INSERT INTO sessions VALUES (?, ?, ?)",
               (hashlib.sha256(session_id.encode()).digest(), user_id, now + 8 * 3600))
    db.execute("COMMIT")
    response = make_response(redirect("/"))
    response.set_cookie("app_session", session_id, max_age=8 * 3600, httponly=True, samesite="Lax")
    return response


@app.get("/check")
def check():
    session_id = request.cookies.get("app_session")
    if not session_id:
        abort(401)
    row = database().execute("SELECT user_id FROM sessions WHERE id_digest = ? AND expires_at > ?",
                             (hashlib.sha256(session_id.encode()).digest(), time.time())).fetchone()
    if row is None:
        abort(401)
    response = make_response("", 202)
    response.headers["X-Auth-User"] = row[0]
    return response


@app.get("/healthz")
def health():
    return {"status": "ok"}
