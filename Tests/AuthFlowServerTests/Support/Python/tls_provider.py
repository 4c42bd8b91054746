"""A provider endpoint behind TLS, for AuthFlowServerTests' provider-fault tests.

Started by the tests with the Python named by AUTHFLOW_PYTHON. It makes a certificate authority
and two certificates for 127.0.0.1 (one issued by that authority, one self-signed), binds
127.0.0.1 on a free port, prints "CA <path of the authority's PEM>" and "PORT <n>", and then
reads commands from stdin, one a line:

  forward <url>    where requests go from now on (http://127.0.0.1:PORT, the sandbox)
  mode trusted     TLS with the certificate the authority issued; each request is forwarded and
                   its answer relayed (the mode it starts in)
  mode untrusted   the same, with the self-signed certificate no client trusts
  mode garbage     no TLS at all: any connection is answered with plain-text bytes, then closed
  mode close       every connection is closed as soon as it is accepted

Each command is acknowledged ("FORWARD", "MODE <name>") once it applies to new connections. Every
answer says "Connection: close", so no connection outlives a change of mode. The script exits
when its stdin closes (the test ended or died) or after --lifetime seconds.
"""
import argparse
import datetime
import http.client
import ipaddress
import os
import shutil
import socket
import ssl
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

HOP_BY_HOP = {"connection", "content-length", "host", "keep-alive", "transfer-encoding", "expect"}


def certificate(subject, key, issuer_name, issuer_key, ca):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
    return builder.sign(issuer_key, hashes.SHA256())


def write_pem(directory, name, cert, key=None):
    path = os.path.join(directory, name + ".pem")
    with open(path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    if key is None:
        return path, None
    key_path = os.path.join(directory, name + "-key.pem")
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return path, key_path


def server_context(cert_path, key_path):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    return context


def certificates(directory):
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "AuthFlow test authority")])
    ca = certificate("AuthFlow test authority", ca_key, ca_name, ca_key, ca=True)
    ca_path, _ = write_pem(directory, "ca", ca)

    leaf_key = ec.generate_private_key(ec.SECP256R1())
    leaf = certificate("127.0.0.1", leaf_key, ca_name, ca_key, ca=False)
    trusted = server_context(*write_pem(directory, "trusted", leaf, leaf_key))

    self_key = ec.generate_private_key(ec.SECP256R1())
    self_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    self_signed = certificate("127.0.0.1", self_key, self_name, self_key, ca=False)
    untrusted = server_context(*write_pem(directory, "untrusted", self_signed, self_key))
    return ca_path, {"trusted": trusted, "untrusted": untrusted}


class Forwarder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # never print requests: they carry codes and secrets
        pass

    def relay(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        with self.server.lock:
            target = urlsplit(self.server.forward)
        upstream = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        try:
            upstream.request(self.command, self.path, body=body, headers=headers)
            answer = upstream.getresponse()
            payload = answer.read()
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in HOP_BY_HOP:
                    self.send_header(name, value)
        except OSError:
            payload = b""
            self.send_response(502)
        finally:
            upstream.close()
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = relay


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, contexts):
        super().__init__(("127.0.0.1", 0), Forwarder)
        self.forward = "http://127.0.0.1:9"
        self.contexts = contexts
        self.lock = threading.Lock()
        self.mode = "trusted"

    def finish_request(self, request, client_address):
        with self.lock:
            mode = self.mode
        if mode == "close":
            return
        if mode == "garbage":
            request.settimeout(5)
            try:
                request.recv(4096)  # the client's hello, unanswered
                request.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            except OSError:
                pass
            return
        try:
            secure = self.contexts[mode].wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return  # the client refused the certificate
        try:
            self.RequestHandlerClass(secure, client_address, self)
        except (ssl.SSLError, OSError):
            pass
        finally:
            secure.close()

    def set_mode(self, mode):
        with self.lock:
            self.mode = mode

    def set_forward(self, url):
        with self.lock:
            self.forward = url


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lifetime", type=float, default=300)
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="authflow-tls-provider-")
    ca_path, contexts = certificates(directory)
    server = Server(contexts)
    print("CA " + ca_path, flush=True)
    print("PORT %d" % server.server_address[1], flush=True)

    def finish():
        shutil.rmtree(directory, ignore_errors=True)
        os._exit(0)

    threading.Thread(target=server.serve_forever, daemon=True).start()
    threading.Timer(args.lifetime, finish).start()
    for line in sys.stdin:
        command, _, argument = line.strip().partition(" ")
        if command == "mode" and argument in ("trusted", "untrusted", "garbage", "close"):
            server.set_mode(argument)
            print("MODE " + argument, flush=True)
        elif command == "forward" and argument.startswith("http://127."):
            server.set_forward(argument)
            print("FORWARD", flush=True)
        else:
            print("ERROR unknown command", flush=True)
    finish()


if __name__ == "__main__":
    main()
