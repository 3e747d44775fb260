"""Interoperability with the SD-JWT reference implementation (PyPI `sd-jwt`).

  verify-ours TOKEN AUD NONCE   verify one of our presentations with the reference verifier;
                                prints the verified, disclosed payload as JSON
  make-theirs AUD NONCE         issue and present an SD-JWT with the reference issuer and
                                holder (issuer key named by a did:key); prints the token
  verify-issued TOKEN AUD NONCE CA_PEM
                                verify an institution's (L2) presentation: the issuer key is the
                                x5c leaf's, after this script checks the leaf is signed by CA_PEM
                                (python cryptography); prints the verified payload as JSON
  thumbprint JWK_JSON           RFC 7638 thumbprint of a JWK, computed by jwcrypto

Run inside the interop virtualenv (scripts/setup creates it). Independent of the Swift code:
did:key decoding here is this script's own.
"""
import json
import sys
import time

from cryptography.hazmat.primitives.asymmetric import ec
from jwcrypto import jwk
from sd_jwt.common import SDObj
from sd_jwt.holder import SDJWTHolder
from sd_jwt.issuer import SDJWTIssuer
from sd_jwt.verifier import SDJWTVerifier

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
P256_MULTICODEC = b"\x80\x24"


def b58decode(text):
    n = 0
    for c in text:
        n = n * 58 + B58.index(c)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return b"\0" * (len(text) - len(text.lstrip("1"))) + raw


def b58encode(data):
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def jwk_from_did_key(did):
    """did:key:zDn… (P-256) → jwcrypto JWK with the public key."""
    assert did.startswith("did:key:z"), did
    raw = b58decode(did[len("did:key:z"):])
    assert raw[:2] == P256_MULTICODEC and len(raw) == 35, "not a P-256 did:key"
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw[2:])
    return jwk.JWK.from_pyca(public)


def did_key_for(key):
    public = key.get_op_key("verify")
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    compressed = public.public_bytes(Encoding.X962, PublicFormat.CompressedPoint)
    return "did:key:z" + b58encode(P256_MULTICODEC + compressed)


def verify_ours(token, aud, nonce):
    verifier = SDJWTVerifier(token, lambda iss, header: jwk_from_did_key(iss), expected_aud=aud, expected_nonce=nonce)
    print(json.dumps(verifier.get_verified_payload(), sort_keys=True))


def issuer_key_from_x5c(ca_pem):
    """The callback of SDJWTVerifier for x5c issuers: the leaf must be signed by the CA (and be
    within its validity); its key is the issuer's."""
    import base64
    import datetime
    from cryptography import x509

    ca = x509.load_pem_x509_certificate(open(ca_pem, "rb").read())

    def callback(iss, header):
        chain = [x509.load_der_x509_certificate(base64.b64decode(c)) for c in header["x5c"]]
        leaf = chain[0]
        # Each certificate signed by the next; the last is the CA itself or signed by it.
        for child, parent in zip(chain, chain[1:]):
            parent.public_key().verify(child.signature, child.tbs_certificate_bytes, ec.ECDSA(child.signature_hash_algorithm))
        top = chain[-1]
        if top != ca:
            ca.public_key().verify(top.signature, top.tbs_certificate_bytes, ec.ECDSA(top.signature_hash_algorithm))
        now = datetime.datetime.now(datetime.timezone.utc)
        assert leaf.not_valid_before_utc <= now <= leaf.not_valid_after_utc, "the issuer certificate is not valid now"
        uris = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(x509.UniformResourceIdentifier)
        assert iss in uris, f"iss {iss} is not a URI of the issuer certificate"
        return jwk.JWK.from_pyca(leaf.public_key())
    return callback


def verify_issued(token, aud, nonce, ca_pem):
    verifier = SDJWTVerifier(token, issuer_key_from_x5c(ca_pem), expected_aud=aud, expected_nonce=nonce)
    print(json.dumps(verifier.get_verified_payload(), sort_keys=True))


def make_theirs(aud, nonce):
    issuer_key = jwk.JWK.generate(kty="EC", crv="P-256")
    holder_key = jwk.JWK.generate(kty="EC", crv="P-256")
    claims = {
        "iss": did_key_for(issuer_key),
        "vct": "https://example.org/reference-test",
        "exp": int(time.time()) + 3600,
        SDObj("age_over_18"): True,
        SDObj("is_human"): True,
        SDObj("given_name"): "Erika",
        SDObj("address"): {SDObj("locality"): "Utopia City", SDObj("country"): "UT"},
        "nationalities": [SDObj("UT"), SDObj("XX")],
    }
    issuer = SDJWTIssuer(claims, issuer_key, holder_key, add_decoy_claims=True,
                         extra_header_parameters={"typ": "dc+sd-jwt"})
    holder = SDJWTHolder(issuer.sd_jwt_issuance)
    holder.create_presentation({"age_over_18": True, "is_human": True, "address": {"country": True},
                                "nationalities": [True, False]}, nonce, aud, holder_key)
    print(holder.sd_jwt_presentation)


def main(argv):
    if argv[1:2] == ["verify-ours"] and len(argv) == 5:
        verify_ours(argv[2], argv[3], argv[4])
    elif argv[1:2] == ["verify-issued"] and len(argv) == 6:
        verify_issued(argv[2], argv[3], argv[4], argv[5])
    elif argv[1:2] == ["make-theirs"] and len(argv) == 4:
        make_theirs(argv[2], argv[3])
    elif argv[1:2] == ["thumbprint"] and len(argv) == 3:
        print(jwk.JWK(**json.loads(argv[2])).thumbprint())
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
