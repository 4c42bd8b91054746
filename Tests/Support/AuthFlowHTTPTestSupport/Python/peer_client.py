"""Independent HTTP client used by AuthFlowHTTPServerTests to exercise HTTPServer.

Usage: peer_client.py METHOD URL [--body TEXT | --body-size N] [--chunked] [--header "Name: value"]...
Prints one JSON object: {"status": int, "headers": [[name, value], ...], "body": text} or
{"error": text} when the request failed. Uses only the standard library (http.client).
"""
import argparse
import http.client
import json
import sys
from urllib.parse import urlsplit


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("method")
    parser.add_argument("url")
    parser.add_argument("--body")
    parser.add_argument("--body-size", type=int)
    parser.add_argument("--chunked", action="store_true")
    parser.add_argument("--header", action="append", default=[])
    parser.add_argument("--timeout", type=float, default=10)
    args = parser.parse_args()

    url = urlsplit(args.url)
    body = None
    if args.body is not None:
        body = args.body.encode()
    elif args.body_size is not None:
        body = b"b" * args.body_size
    headers = {}
    for line in args.header:
        name, _, value = line.partition(":")
        headers[name.strip()] = value.strip()
    try:
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=args.timeout)
        target = url.path + ("?" + url.query if url.query else "")
        if args.chunked:
            connection.request(args.method, target, body=iter([body or b""]), headers=headers, encode_chunked=True)
        else:
            connection.request(args.method, target, body=body, headers=headers)
        response = connection.getresponse()
        payload = {
            "status": response.status,
            "headers": [[k, v] for k, v in response.getheaders()],
            "body": response.read().decode("utf-8", "replace"),
        }
    except Exception as error:  # report, do not crash: the test decides
        payload = {"error": type(error).__name__}
    print(json.dumps(payload))


if __name__ == "__main__":
    main()
