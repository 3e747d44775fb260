"""Self-test of the chip without pcscd:  /usr/bin/python3 -m vpassport selftest

1. ICAO 9303-11 Appendix D worked examples (D.2 key derivation, D.3 mutual
   authentication, D.4 protected SELECT EF.COM), read at run time from
   ../shared/reference/vectors/icao9303-part11.json (or $ICAO_VECTORS);
   skipped with a message when that file is absent.
2. MRZ information from synthetic TD1 / TD2 / TD3 DG1s, long TD1 numbers too.
3. An in-process session of the smoke client's reader against a synthetic
   dump, including a 40000-byte DG2 (odd READ BINARY beyond offset 32767).
"""
import json
import os

from . import bac
from .apdu import tlv
from .chip import EmrtdOS
from .dump import _check_digit, mrz_information

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTORS = os.environ.get("ICAO_VECTORS") or os.path.join(
    ROOT, "..", "shared", "reference", "vectors", "icao9303-part11.json")

failures = []


def check(ok, what):
    print("  %s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def cd(s):
    return s + _check_digit(s)


def dg1(mrz):
    return tlv(0x61, tlv(0x5F1F, mrz.encode("ascii")))


def td3(doc, dob, doe):
    line1 = "P<UTOSPECIMEN<<TEST".ljust(44, "<")
    line2 = cd(doc) + "UTO" + cd(dob) + "F" + cd(doe) + "<" * 14 + "<" + "0"
    return line1 + line2


def long_number(doc, optional_size):
    """(number field + check digit field, optional data) of an MRZ."""
    if len(doc) <= 9:
        return cd(doc), "<" * optional_size
    return doc[:9] + "<", cd(doc)[9:].ljust(optional_size, "<")


def td2(doc, dob, doe):
    number, optional = long_number(doc, 7)
    line1 = "I<UTOSPECIMEN<<TEST".ljust(36, "<")
    return line1 + number + "UTO" + cd(dob) + "F" + cd(doe) + optional + "0"


def td1(doc, dob, doe):
    number, optional = long_number(doc, 15)
    line1 = "I<UTO" + number + optional
    line2 = (cd(dob) + "F" + cd(doe) + "UTO").ljust(29, "<") + "0"
    line3 = "SPECIMEN<<TEST".ljust(30, "<")
    return line1 + line2 + line3


def icao_vectors():
    print("ICAO 9303-11 worked examples")
    if not os.path.exists(VECTORS):
        print("  skipped: %s not found" % VECTORS)
        return
    with open(VECTORS) as f:
        v = json.load(f)
    d2, d3, d4 = (v["bac_D2_key_derivation"], v["bac_D3_mutual_authentication"],
                  v["sm_D4_select_ef_com_3des"])
    h = bytes.fromhex
    info = d2["mrz_information"]
    seed = bac.k_seed(info)
    check(seed == h(d2["k_seed"]), "D.2 K_seed")
    k_enc, k_mac = bac.bac_keys_from_seed(seed)
    check(k_enc == h(d2["k_enc_parity_adjusted"]), "D.2 K_enc")
    check(k_mac == h(d2["k_mac_parity_adjusted"]), "D.2 K_mac")

    doc, dob, doe = d2["document_number"], d2["date_of_birth"], d2["date_of_expiry"]
    for label, mrz in (("TD3", td3(doc, dob, doe)), ("TD2", td2(doc, dob, doe)),
                       ("TD1", td1(doc, dob, doe))):
        check(mrz_information(dg1(mrz)) == info, "D.2 MRZ information from a %s DG1" % label)

    # D.3 from the chip's side: the chip issued RND.ICC and draws K.ICC.
    chip = EmrtdOS({"DG1": dg1(td3(doc, dob, doe)), "COM": b"\x60\x00"})
    draws = [h(d3["rnd_icc"]), h(d3["k_icc"])]
    chip.random = lambda n: draws.pop(0)
    chip.execute(bytes.fromhex("00A4040C07A0000002471001"))
    chip.execute(bytes.fromhex("0084000008"))
    resp = chip.execute(bytes.fromhex("0082000028" + d3["external_authenticate_data_eifd_mifd"]
                                      + "28"))
    check(resp == h(d3["chip_response_eicc_micc"]) + b"\x90\x00", "D.3 E_ICC || M_ICC")
    s = chip.session
    check(s is not None and s.ks_enc == h(d3["ks_enc"]) and s.ks_mac == h(d3["ks_mac"]),
          "D.3 KS_enc, KS_mac")
    check(s is not None and s.ssc == int(d3["ssc"], 16), "D.3 SSC")

    # D.4: protected SELECT EF.COM, answered by the chip.
    s.ssc = int(d4["ssc_before"], 16)
    resp = chip.execute(h(d4["protected_command"]))
    check(resp == h(d4["protected_response"]), "D.4 protected SELECT EF.COM response")


def mrz_cases():
    print("MRZ information")
    check(mrz_information(dg1(td1("AB1234567890", "800101", "300101"))) ==
          cd("AB1234567890") + cd("800101") + cd("300101"), "TD1 long document number")
    check(mrz_information(dg1(td2("AB12345678", "800101", "300101"))) ==
          cd("AB12345678") + cd("800101") + cd("300101"), "TD2 long document number")


class Direct:
    def __init__(self, chip):
        self.chip = chip

    def transmit(self, apdu):
        return self.chip.execute(apdu)


def round_trip():
    print("in-process session against a synthetic dump")
    from .smoke_client import Reader
    rnd = os.urandom
    files = {"DG1": dg1(td3("X12345678", "900101", "350101")),
             "COM": tlv(0x60, tlv(0x5F01, b"0107") + tlv(0x5C, b"\x61\x75")),
             "DG2": tlv(0x75, rnd(39990)), "SOD": tlv(0x77, rnd(1500)),
             "CardAccess": tlv(0x31, rnd(18))}
    info = cd("X12345678") + cd("900101") + cd("350101")
    for extended in (True, False):
        chip = EmrtdOS(files, extended_length=extended)
        r = Reader(Direct(chip))
        data, sw = r.plain(0xB0, 0x9C, 0, ne=256)
        check(data == files["CardAccess"], "CardAccess by SFI before BAC")
        r.plain(0xA4, 0x04, 0x0C, bytes.fromhex("A0000002471001"))
        check(r.bac(info[:-1] + "0" if info[-1] != "0" else "1") == 0x6300, "wrong MRZ -> 6300")
        check(r.bac(info) == 0x9000, "BAC")
        for name, fid, sfi in (("COM", 0x011E, 0x1E), ("DG1", 0x0101, 1),
                               ("DG2", 0x0102, 2), ("SOD", 0x011D, 0x1D)):
            check(r.read_short(fid, sfi) == files[name], "%s short reads" % name)
            if extended:
                check(r.read_extended(fid) == files[name], "%s extended read" % name)
        if extended:
            data, sw = r.read_odd(0x0102, 33000, 65536)
            check(sw == 0x6282 and data == files["DG2"][33000:], "B1 at offset 33000")
        else:
            data, sw = r.sm(0xB0, 0, 0, ne=65536, extended=True)
            check(sw == 0x6700 and r.keys is None, "extended APDU refused, session ended")


def main():
    icao_vectors()
    mrz_cases()
    round_trip()
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0
