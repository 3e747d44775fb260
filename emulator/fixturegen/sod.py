"""EF.SOD: LDSSecurityObject (ICAO 9303-10) inside CMS SignedData (RFC 5652), wrapped in tag 77."""

from __future__ import annotations

import datetime as dt
import hashlib

import der

from .x509 import OID, Scheme, cert_parts, digest_algorithm

ID_SIGNED_DATA = "1.2.840.113549.1.7.2"
ID_LDS_SECURITY_OBJECT = "2.23.136.1.1.1"
ID_CONTENT_TYPE = "1.2.840.113549.1.9.3"
ID_MESSAGE_DIGEST = "1.2.840.113549.1.9.4"
ID_SIGNING_TIME = "1.2.840.113549.1.9.5"


def digest(h: str, data: bytes) -> bytes:
    return hashlib.new(h, data).digest()


def lds_security_object(h: str, dg_files: dict[int, bytes]) -> bytes:
    """LDSSecurityObject v0: hashes of the complete DG files, in ascending DG number."""
    hashes = [der.sequence(der.integer(n), der.octet_string(digest(h, dg_files[n]))) for n in sorted(dg_files)]
    return der.sequence(der.integer(0), digest_algorithm(h), der.sequence(*hashes))


def attribute(oid: str, value: bytes) -> bytes:
    return der.sequence(der.oid(oid), der.set_of(value))


def signed_attributes(h: str, econtent: bytes, signing_time: dt.datetime) -> bytes:
    """The signed attributes as a DER SET OF (tag 31): what the signature covers (RFC 5652 5.4)."""
    return der.set_of(
        attribute(ID_CONTENT_TYPE, der.oid(ID_LDS_SECURITY_OBJECT)),
        attribute(ID_SIGNING_TIME, der.utc_time(signing_time)),
        attribute(ID_MESSAGE_DIGEST, der.octet_string(digest(h, econtent))),
    )


def ef_sod(*, h: str, dg_files: dict[int, bytes], dsc: bytes, dsc_key, scheme: Scheme,
           signing_time: dt.datetime, previous_signature: bytes | None = None) -> bytes:
    econtent = lds_security_object(h, dg_files)
    signed_attrs = signed_attributes(h, econtent, signing_time)
    signature = scheme.sign_stable(dsc_key, signed_attrs, previous_signature)
    parts = cert_parts(dsc)
    signer_info = der.sequence(
        der.integer(1),                                                  # version 1: issuerAndSerialNumber
        der.sequence(parts["issuer"], der.integer(parts["serial"])),     # sid
        digest_algorithm(h),
        der.implicit_constructed(0, der.parse_one(signed_attrs).value),  # [0] IMPLICIT SignedAttributes
        scheme.algorithm_identifier,
        der.octet_string(signature),
    )
    signed_data = der.sequence(
        der.integer(3),
        der.set_of(digest_algorithm(h)),
        der.sequence(der.oid(ID_LDS_SECURITY_OBJECT), der.explicit(0, der.octet_string(econtent))),
        der.implicit_constructed(0, dsc),                                # certificates [0] IMPLICIT SET OF
        der.set_of(signer_info),
    )
    content_info = der.sequence(der.oid(ID_SIGNED_DATA), der.explicit(0, signed_data))
    return der.tlv(0x77, content_info)


# ---------------------------------------------------------------------------
# Reading back (used for signature reuse and for the checks)
# ---------------------------------------------------------------------------

def unwrap(sod_file: bytes) -> bytes:
    node = der.parse_one(sod_file)
    assert node.tag == b"\x77", node.tag
    return node.value


def parse(sod_file: bytes) -> dict:
    ci = der.parse_one(unwrap(sod_file))
    sd = ci.children()[1].children()[0].children()
    econtent_info = sd[2].children()
    econtent = econtent_info[1].children()[0].value
    certs = [c.raw for c in sd[3].children()] if sd[3].tag == b"\xa0" else []
    signer = sd[-1].children()[0].children()
    signed_attrs_node = signer[3]
    signed_attrs_der = b"\x31" + signed_attrs_node.raw[1:]
    lso = der.parse_one(econtent).children()
    hash_oid = lso[1].children()[0].as_oid()
    dg_hashes = {c.children()[0].as_int(): c.children()[1].value for c in lso[2].children()}
    attrs = {}
    for a in signed_attrs_node.children():
        ac = a.children()
        attrs[ac[0].as_oid()] = ac[1].children()[0]
    sig_alg = signer[4].children()
    return {
        "econtent_type": econtent_info[0].as_oid(),
        "econtent": econtent,
        "certificates": certs,
        "signed_attrs": signed_attrs_der,
        "signature": signer[5].value,
        "signature_algorithm": sig_alg[0].as_oid(),
        "digest_algorithm": signer[2].children()[0].as_oid(),
        "lds_hash_algorithm": hash_oid,
        "dg_hashes": dg_hashes,
        "message_digest": attrs[ID_MESSAGE_DIGEST].value,
        "signing_time": attrs[ID_SIGNING_TIME].value.decode(),
        "sid_serial": signer[1].children()[1].as_int(),
        "sid_issuer": signer[1].children()[0].raw,
    }


HASH_NAMES = {OID["sha256"]: "sha256", OID["sha384"]: "sha384", OID["sha512"]: "sha512"}
