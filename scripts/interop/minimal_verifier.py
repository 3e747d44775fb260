#!/usr/bin/env python3
"""A minimal OpenID4VP 1.0 verifier built on the toolkit's own `passport verify-vp --request`.

  minimal_verifier.py --passport PATH [--port N] [--claim NAME]... [--encrypted]

Serves, on http://127.0.0.1:PORT (loopback, plain HTTP: the wallet needs --insecure-loopback),
one unsigned request (client_id prefix redirect_uri, response_mode direct_post) at /request
and its response_uri at /cb. A posted vp_token is judged by `passport verify-vp VP_TOKEN
--request request.json --json`: 200 {} when it exits 0, 400 {"error": "invalid_request"}
otherwise; each verdict is printed on stderr as `verdict: accepted|refused: …`. The launch link
is printed on stdout. Python standard library only, except --encrypted (response_mode
direct_post.jwt: a P-256 key made with python cryptography, the response opened by
`passport verify-vp --decryption-key`), which needs the interop virtualenv.
"""
import argparse
import base64
import http.server
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.parse


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--passport", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--claim", action="append", default=[])
    # Tests of what the wallet prints: refuse every answer with this error_description, as a
    # hostile verifier might.
    parser.add_argument("--refuse-with")
    parser.add_argument("--encrypted", action="store_true")
    args = parser.parse_args()

    server = http.server.HTTPServer(("127.0.0.1", args.port), http.server.BaseHTTPRequestHandler)
    port = server.server_address[1]
    response_uri = "http://127.0.0.1:%d/cb" % port
    client_id = "redirect_uri:" + response_uri
    request = {
        "client_id": client_id, "response_type": "vp_token", "response_mode": "direct_post",
        "response_uri": response_uri, "nonce": secrets.token_urlsafe(16), "state": secrets.token_urlsafe(8),
        "iat": int(time.time()), "exp": int(time.time()) + 600,
        "dcql_query": {"credentials": [{
            "id": "passport", "format": "dc+sd-jwt",
            "meta": {"vct_values": ["urn:passport-toolkit:vct:passport-derived:1"]},
            "claims": [{"path": [name]} for name in (args.claim or ["age_over_18"])],
        }]},
    }
    key_file = None
    if args.encrypted:
        from cryptography.hazmat.primitives.asymmetric import ec
        numbers = ec.generate_private_key(ec.SECP256R1()).private_numbers()
        public = {"kty": "EC", "crv": "P-256", "x": b64u(numbers.public_numbers.x.to_bytes(32, "big")),
                  "y": b64u(numbers.public_numbers.y.to_bytes(32, "big"))}
        key_file = tempfile.NamedTemporaryFile("w", suffix=".jwk", delete=False)
        json.dump(dict(public, d=b64u(numbers.private_value.to_bytes(32, "big"))), key_file)
        key_file.close()
        request["response_mode"] = "direct_post.jwt"
        request["client_metadata"] = {"jwks": {"keys": [dict(public, use="enc", alg="ECDH-ES", kid="rp-enc")]},
                                      "encrypted_response_enc_values_supported": ["A256GCM"]}
    request_file = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(request, request_file)
    request_file.close()
    request_object = b64u(b'{"alg":"none"}') + "." + b64u(json.dumps(request).encode()) + "."
    answered = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, fmt, *a):
            sys.stderr.write("%s %s\n" % (self.command, self.path))

        def send(self, status, body, content_type="application/json"):
            raw = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self):
            if self.path != "/request":
                return self.send(404, '{"error":"not_found"}')
            self.send(200, request_object, "application/oauth-authz-req+jwt")

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(min(length, 1 << 20)).decode("utf-8", "replace")
            form = urllib.parse.parse_qs(body)
            if self.path != "/cb":
                return self.send(404, '{"error":"not_found"}')
            if args.refuse_with is not None:
                return self.send(400, json.dumps({"error": "access_denied", "error_description": args.refuse_with}))
            if answered:
                sys.stderr.write("verdict: refused: already answered\n")
                return self.send(400, '{"error":"invalid_request"}')
            if key_file:
                token = (form.get("response") or [""])[0]
                extra = ["--decryption-key", key_file.name]
            else:
                # The form body as posted: verify-vp checks its state against the request's.
                token = body
                extra = []
            # The toolkit's own presentations are self-issued: this verifier accepts level L1.
            r = subprocess.run([args.passport, "verify-vp", token, "--request", request_file.name, "--json", "--require-level", "L1"] + extra,
                               capture_output=True, text=True, timeout=60)
            if r.returncode == 0:
                answered.append(True)
                sys.stderr.write("verdict: accepted: %s\n" % r.stdout.strip())
                return self.send(200, "{}")
            sys.stderr.write("verdict: refused: %s\n" % r.stderr.strip())
            self.send(400, '{"error":"invalid_request"}')

    server.RequestHandlerClass = Handler
    link = "openid4vp://?" + urllib.parse.urlencode({"client_id": client_id, "request_uri": "http://127.0.0.1:%d/request" % port})
    print(link, flush=True)
    try:
        server.serve_forever()
    finally:
        os.unlink(request_file.name)
        if key_file:
            os.unlink(key_file.name)


if __name__ == "__main__":
    main()
