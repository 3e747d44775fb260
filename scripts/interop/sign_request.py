"""Signs an OpenID4VP request object (ES256, typ oauth-authz-req+jwt, x5c leaf then CA-issued
chain) with a key and certificate of polaris-oid4vp's keygen, for tests of client identifier
prefixes polaris itself does not use (x509_san_dns).

  sign_request.py KEY_PEM CERT_PEM CLAIMS_JSON     prints the compact JWS

Run inside the interop virtualenv (python cryptography)."""
import base64
import json
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), password=None)
cert = x509.load_pem_x509_certificate(open(sys.argv[2], "rb").read())
claims = json.loads(sys.argv[3])
header = {"alg": "ES256", "typ": "oauth-authz-req+jwt",
          "x5c": [base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode("ascii")]}
signing_input = b64u(json.dumps(header).encode()) + "." + b64u(json.dumps(claims).encode())
r, s = decode_dss_signature(key.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256())))
print(signing_input + "." + b64u(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
