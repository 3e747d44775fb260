"""The one DER (X.690) and OID helper of emulator/: the virtual passport
(emulator/vpassport) and the fixture generator (emulator/fixturegen) both use it.

  encode  length, tlv, tag_bytes, tlv_size, integer, enumerated, boolean, null,
          octet_string, bit_string, named_bits, oid, utf8, printable, utc_time,
          generalized_time, time, sequence, set_of, explicit, implicit_constructed,
          implicit_primitive
  decode  parse_tlvs, find_tlv, integer_value, Node, parse_one, parse_all
  oid     oid_body (dotted text -> content octets), oid_text (the reverse)

Import it with emulator/ on sys.path (`import der`, `from der import tlv`).
"""

from .decode import Node, find_tlv, integer_value, parse_all, parse_one, parse_tlvs
from .encode import (PRINTABLE, bit_string, boolean, enumerated, explicit, generalized_time,
                     implicit_constructed, implicit_primitive, integer, length, named_bits, null,
                     octet_string, oid, printable, sequence, set_of, tag_bytes, time, tlv,
                     tlv_size, utc_time, utf8)
from .oid import oid_body, oid_text

__all__ = [
    "Node", "find_tlv", "integer_value", "parse_all", "parse_one", "parse_tlvs",
    "PRINTABLE", "bit_string", "boolean", "enumerated", "explicit", "generalized_time",
    "implicit_constructed", "implicit_primitive", "integer", "length", "named_bits", "null",
    "octet_string", "oid", "printable", "sequence", "set_of", "tag_bytes", "time", "tlv",
    "tlv_size", "utc_time", "utf8", "oid_body", "oid_text",
]
