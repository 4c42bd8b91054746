"""Independent HTTP(S) server used by AuthFlowCurlTests to exercise CurlHTTPClient.

Started by the tests with the Python named by AUTHFLOW_PYTHON (or python3). It binds
127.0.0.1 on a free port, prints "PORT <n>" (and, with --tls, "CERT <path>") on stdout, and
exits when its stdin closes (the test ended or died) or after --lifetime seconds.

Routes:
  /echo            any method: JSON with method, path, query, headers, body, client_port
  /sleep?seconds=S sleeps S seconds, then 200 "slept"
  /large?bytes=N   N bytes with a Content-Length header
  /stream?bytes=N  N bytes without Content-Length (connection close delimits the body)
  /redirect        302 to /echo
  /basic           decodes "Authorization: Basic" per RFC 6749 2.3.1 into {"user", "password"}
  /status?code=N   an empty response with status N
  /seen?path=P     how many requests for P have arrived so far (text), so a test waits for one to arrive
"""
import argparse
import base64
import json
import os
import shutil
import ssl
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote_plus, urlsplit


SEEN = {}
SEEN_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # keep test output quiet; never print headers
        pass

    def _send(self, status, body=b"", headers=(), content_length=True):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if content_length:
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _route(self):
        url = urlsplit(self.path)
        query = dict(parse_qsl(url.query))
        with SEEN_LOCK:
            SEEN[url.path] = SEEN.get(url.path, 0) + 1
        body = self._body()
        if url.path == "/echo":
            payload = {
                "method": self.command,
                "path": url.path,
                "query": parse_qsl(url.query, keep_blank_values=True),
                "headers": [[k, v] for k, v in self.headers.items()],
                "body": body.decode("utf-8", "replace"),
                "client_port": self.client_address[1],
            }
            self._send(200, json.dumps(payload).encode(), [("Content-Type", "application/json")])
        elif url.path == "/sleep":
            time.sleep(float(query.get("seconds", "1")))
            self._send(200, b"slept")
        elif url.path == "/large":
            self._send(200, b"x" * int(query.get("bytes", "0")))
        elif url.path == "/stream":
            self._send(200, b"y" * int(query.get("bytes", "0")), content_length=False)
        elif url.path == "/redirect":
            self._send(302, b"", [("Location", "/echo")])
        elif url.path == "/basic":
            header = self.headers.get("Authorization", "")
            scheme, _, encoded = header.partition(" ")
            if scheme != "Basic":
                self._send(401, b"{}")
                return
            user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
            payload = {"user": unquote_plus(user), "password": unquote_plus(password), "raw": header}
            self._send(200, json.dumps(payload).encode(), [("Content-Type", "application/json")])
        elif url.path == "/status":
            self._send(int(query.get("code", "200")))
        elif url.path == "/seen":
            with SEEN_LOCK:
                count = SEEN.get(query.get("path", ""), 0)
            self._send(200, str(count).encode())
        else:
            self._send(404, b"not found")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _route


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512


def self_signed_certificate(directory):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    import datetime
    import ipaddress

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path = os.path.join(directory, "cert.pem")
    key_path = os.path.join(directory, "key.pem")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return cert_path, key_path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tls", choices=["none", "modern", "legacy"], default="none")
    parser.add_argument("--lifetime", type=float, default=120)
    args = parser.parse_args()

    server = Server(("127.0.0.1", 0), Handler)
    directory = tempfile.mkdtemp(prefix="authflow-peer-")
    if args.tls != "none":
        cert_path, key_path = self_signed_certificate(directory)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_path, key_path)
        if args.tls == "legacy":
            context.set_ciphers("ALL:@SECLEVEL=0")
            context.minimum_version = ssl.TLSVersion.TLSv1
            context.maximum_version = ssl.TLSVersion.TLSv1_1
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print("CERT " + cert_path, flush=True)
    print("PORT %d" % server.server_address[1], flush=True)

    def finish():
        shutil.rmtree(directory, ignore_errors=True)
        os._exit(0)

    def watchdog():
        sys.stdin.read()  # returns when the test closes our stdin or exits
        finish()

    threading.Thread(target=watchdog, daemon=True).start()
    threading.Timer(args.lifetime, finish).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
