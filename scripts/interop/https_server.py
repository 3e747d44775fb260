#!/usr/bin/python3
"""A local HTTPS server for the wallet's HTTP client tests (Tests/EndToEndTests/VerifierHTTPTests).

Usage: https_server.py make-pki DIR        a TEST-ONLY CA (ca.pem) and a server certificate for
                                           127.0.0.1 and localhost signed by it (server.pem, server.key)
       https_server.py serve DIR MODE      serve HTTPS on 127.0.0.1 (an ephemeral port, printed as
                                           "PORT n" on stdout) with DIR's server certificate
MODE: ok      GET answers 200 with a small body; POST answers 200 with the form it was sent
      huge    200 announcing 200 MB, then zeros until the client stops reading
      stream  200 without a length (chunked), zeros until the client stops reading
      drip    200 announcing 1000 bytes, then one byte every half second
The number of body bytes each answer managed to send goes to stderr ("SENT n").
Stops by itself after 120 seconds.
"""
import datetime
import http.server
import os
import ssl
import sys
import threading
import time

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
import ipaddress


def make_pki(folder):
    os.makedirs(folder, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "TEST-ONLY wallet HTTP CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    with open(os.path.join(folder, "ca.pem"), "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(folder, "server.pem"), "wb") as f:
        f.write(leaf.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(folder, "server.key"), "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))


class Handler(http.server.BaseHTTPRequestHandler):
    mode = "ok"
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_zeros(self, chunked):
        sent = 0
        block = b"\0" * 65536
        try:
            while True:
                if chunked:
                    self.wfile.write(b"%x\r\n" % len(block) + block + b"\r\n")
                else:
                    self.wfile.write(block)
                sent += len(block)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            pass
        print("SENT %d" % sent, file=sys.stderr, flush=True)

    def do_GET(self):
        self.answer(b"")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.answer(self.rfile.read(length))

    def answer(self, received):
        print("REQUEST %s %s" % (self.command, self.path), file=sys.stderr, flush=True)
        if self.mode == "ok":
            body = received if self.command == "POST" else b"a request object"
            self.send_response(200)
            self.send_header("Content-Type", "application/oauth-authz-req+jwt")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.mode == "huge":
            self.send_response(200)
            self.send_header("Content-Length", str(200 * 1024 * 1024))
            self.end_headers()
            self.send_zeros(chunked=False)
        elif self.mode == "stream":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.send_zeros(chunked=True)
        elif self.mode == "drip":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            sent = 0
            try:
                for _ in range(1000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    sent += 1
                    time.sleep(0.5)
            except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
                pass
            print("SENT %d" % sent, file=sys.stderr, flush=True)


def serve(folder, mode):
    Handler.mode = mode
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(folder, "server.pem"), os.path.join(folder, "server.key"))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print("PORT %d" % server.server_address[1], flush=True)
    threading.Timer(120, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "make-pki":
        make_pki(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "serve":
        serve(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
