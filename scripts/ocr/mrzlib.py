"""Shared helpers for the MRZ OCR data tools in scripts/ocr.

Random but valid machine readable zones (ICAO Doc 9303 TD1, TD2, TD3), OCR-B rendering of
MRZ lines, and the image degradations used by make-dataset and make-lines.
Needs Debian's python3-pil and python3-numpy (run with /usr/bin/python3).
"""
import io
import math
import os
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

OCRB_DIR = "/usr/share/fonts/opentype/ocr-b"
OCRB_FONT = os.path.join(OCRB_DIR, "OCRB.otf")  # Debian package fonts-ocr-b
SANS_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # fonts-dejavu-core
SANS_BOLD_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
SERIF_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"

MRZ_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"
# OCR-B advance width as a fraction of the em (the font is monospaced).
OCRB_ADVANCE_EM = 0.723
MRZ_PITCH_MM = 2.54  # ICAO: 10 characters per inch
MRZ_LINE_PITCH_MM = 4.23  # 6 lines per inch

FORMATS = {  # name: (lines, characters per line, document width mm, height mm)
    "TD1": (3, 30, 85.6, 53.98),
    "TD2": (2, 36, 105.0, 74.0),
    "TD3": (2, 44, 125.0, 88.0),
    # visas (ICAO 9303-7): MRV-A, the size of a passport page; MRV-B, smaller, leaving the page's
    # clear area free; no composite check digit
    "MRVA": (2, 44, 120.0, 80.0),
    "MRVB": (2, 36, 106.0, 74.0),
}

# ISO 3166-1 alpha-3 codes as used in MRZs, plus ICAO's own codes ("D" for Germany,
# British nationality classes, UN, stateless and refugee codes).
STATE_CODES = """
AFG ALB DZA AND AGO ATG ARG ARM AUS AUT AZE BHS BHR BGD BRB BLR BEL BLZ BEN BTN BOL BIH BWA
BRA BRN BGR BFA BDI KHM CMR CAN CPV CAF TCD CHL CHN COL COM COG COD CRI CIV HRV CUB CYP CZE
DNK DJI DMA DOM ECU EGY SLV GNQ ERI EST SWZ ETH FJI FIN FRA GAB GMB GEO GHA GRC GRD GTM GIN
GNB GUY HTI HND HUN ISL IND IDN IRN IRQ IRL ISR ITA JAM JPN JOR KAZ KEN KIR PRK KOR KWT KGZ
LAO LVA LBN LSO LBR LBY LIE LTU LUX MDG MWI MYS MDV MLI MLT MHL MRT MUS MEX FSM MDA MCO MNG
MNE MAR MOZ MMR NAM NRU NPL NLD NZL NIC NER NGA MKD NOR OMN PAK PLW PSE PAN PNG PRY PER PHL
POL PRT QAT ROU RUS RWA KNA LCA VCT WSM SMR STP SAU SEN SRB SYC SLE SGP SVK SVN SLB SOM ZAF
SSD ESP LKA SDN SUR SWE CHE SYR TWN TJK TZA THA TLS TGO TON TTO TUN TUR TKM TUV UGA UKR ARE
GBR USA URY UZB VUT VAT VEN VNM YEM ZMB ZWE HKG MAC
D GBD GBN GBO GBP GBS UNO UNA UNK XXA XXB XXC XXX EUE XOM RKS
""".split()

SURNAMES = """
SMITH JOHNSON MUELLER SCHMIDT GARCIA MARTINEZ ROSSI RUSSO DUBOIS MOREAU NOWAK KOWALSKI
IVANOV PETROV NIELSEN HANSEN JENSEN VIRTANEN KORHONEN SILVA SANTOS OLIVEIRA PEREIRA YILMAZ
KAYA WANG LI ZHANG CHEN LIU NGUYEN TRAN KIM LEE PARK SATO SUZUKI TAKAHASHI TANAKA SINGH
KUMAR SHARMA PATEL KHAN AHMED HASSAN ALI OKAFOR MENSAH DIALLO TRAORE VAN<DER<BERG DE<JONG
O<BRIEN MURPHY KELLY WALSH ANDERSSON JOHANSSON KARLSSON ERIKSSON NOVAK HORVAT KOVACS NAGY
PAPADOPOULOS GEORGIOU COHEN LEVI FERREIRA ALMEIDA GONZALEZ RODRIGUEZ LOPEZ HERNANDEZ
WOJCIECHOWSKA STOJANOVIC DIMITROV POPESCU FISCHER WEBER MEYER WAGNER BECKER HOFFMANN
SCHULZ KOCH RICHTER KLEIN WOLF NEUMANN SCHWARZ ZIMMERMANN BRAUN KRUEGER HARTMANN LANGE
ERIKSSON<LINDQVIST MACDONALD FITZGERALD ABDULRAHMAN VANDERBILT MONTGOMERY CHRISTODOULOU
""".split()

GIVEN_NAMES = """
ANNA MARIA JOHN JAMES PETER PAUL ANNE ELENA SOFIA LUCAS NOAH EMMA OLIVIA LIAM MIA LEON
FELIX JONAS HANNAH LEA LAURA JULIA MAX BEN PAUL ELIAS ALEXANDER DAVID DANIEL MICHAEL
THOMAS ANDREAS STEFAN MARTIN KLAUS ERIKA INGRID OLGA IVAN DMITRI SERGEI AHMED FATIMA
AISHA OMAR YUSUF WEI MEI HIROSHI YUKI AKIRA MIN JI SOO PRIYA RAHUL AMIT CHIDI KWAME
FRANCOIS JEAN PIERRE MARIE CLAIRE JOSE LUIS CARLOS ANA LUCIA GIOVANNI FRANCESCA MATTEO
CHIARA SVEN ASTRID BJORN KARIN MIKKO AINO JAN PIOTR AGNIESZKA TOMASZ KATARZYNA
CHRISTOPHER ELIZABETH MAXIMILIAN ALEKSANDRA KONSTANTINOS
""".split()

TD3_TYPES = ["P<"] * 12 + ["PD", "PO", "PS", "PT", "PM"]
TD1_TYPES = ["I<"] * 6 + ["ID"] * 4 + ["AC", "IR", "IP", "CR", "A<"]
TD2_TYPES = ["I<"] * 6 + ["ID"] * 2 + ["IP", "AC", "IR"]
VISA_TYPES = ["V<"] * 5 + ["VC", "VD", "VS", "VT", "VI"]

_CD_WEIGHTS = (7, 3, 1)


def char_value(c):
    if c == "<":
        return 0
    if c.isdigit():
        return ord(c) - 48
    return ord(c) - 55  # A=10 ... Z=35


def check_digit(field):
    return str(sum(char_value(c) * _CD_WEIGHTS[i % 3] for i, c in enumerate(field)) % 10)


def pad(text, length):
    return (text + "<" * length)[:length]


def _random_alnum(rng, n, digits_share=0.7):
    return "".join(rng.choice("0123456789") if rng.random() < digits_share
                   else rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(n))


def _random_date(rng, start_year, end_year):
    year = rng.randint(start_year, end_year)
    month = rng.randint(1, 12)
    day = rng.randint(1, 28 if month == 2 else (30 if month in (4, 6, 9, 11) else 31))
    return year, month, day


def _yymmdd(d):
    return "%02d%02d%02d" % (d[0] % 100, d[1], d[2])


def _name_field(rng, length):
    surname = rng.choice(SURNAMES)
    if rng.random() < 0.15:
        surname += "<" + rng.choice(SURNAMES)
    given = [rng.choice(GIVEN_NAMES) for _ in range(rng.choice((1, 1, 1, 2, 2, 3)))]
    if rng.random() < 0.03:
        given = []  # a holder with a single name
    text = surname + "<<" + "<".join(given)
    return pad(text, length), surname.replace("<", " "), " ".join(given)


def _document_number(rng):
    style = rng.random()
    if style < 0.45:
        n = _random_alnum(rng, 9, 0.6)
    elif style < 0.75:
        n = rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + _random_alnum(rng, 8, 1.0)
    elif style < 0.9:
        n = _random_alnum(rng, 9, 1.0)
    else:
        n = _random_alnum(rng, rng.randint(6, 8), 0.7)
    return pad(n, 9)


def random_mrz(rng, fmt=None):
    """Returns a dict with a random valid MRZ of the given (or a random) format."""
    if fmt is None:
        fmt = rng.choices(["TD3", "TD1", "TD2"], weights=[5, 3, 2])[0]
    state = pad(rng.choice(STATE_CODES), 3)
    nationality = state if rng.random() < 0.85 else pad(rng.choice(STATE_CODES), 3)
    birth = _random_date(rng, 1935, 2023)
    issue_year = max(birth[0] + 1, rng.randint(2012, 2025))
    expiry = _random_date(rng, issue_year + 1, issue_year + 10)
    sex = rng.choices("MF<X", weights=[45, 45, 8, 2])[0]
    docnum = _document_number(rng)
    dob, exp = _yymmdd(birth), _yymmdd(expiry)
    dob_cd, exp_cd, doc_cd = check_digit(dob), check_digit(exp), check_digit(docnum)
    has_optional = rng.random() < 0.4

    if fmt == "TD3":
        doc_type = rng.choice(TD3_TYPES)
        name, surname, given = _name_field(rng, 39)
        line1 = doc_type + state + name
        personal = pad(_random_alnum(rng, rng.randint(5, 14), 0.8), 14) if has_optional else "<" * 14
        personal_cd = check_digit(personal) if has_optional or rng.random() < 0.5 else "<"
        body = docnum + doc_cd + nationality + dob + dob_cd + sex + exp + exp_cd + personal + personal_cd
        composite = check_digit(body[0:10] + body[13:20] + body[21:43])
        lines = [line1, body + composite]
    elif fmt == "TD2":
        doc_type = rng.choice(TD2_TYPES)
        name, surname, given = _name_field(rng, 31)
        line1 = doc_type + state + name
        optional = pad(_random_alnum(rng, rng.randint(2, 7), 0.8), 7) if has_optional else "<" * 7
        body = docnum + doc_cd + nationality + dob + dob_cd + sex + exp + exp_cd + optional
        composite = check_digit(body[0:10] + body[13:20] + body[21:35])
        lines = [line1, body + composite]
    elif fmt == "TD1":
        doc_type = rng.choice(TD1_TYPES)
        optional1 = pad(_random_alnum(rng, rng.randint(3, 15), 0.8), 15) if has_optional else "<" * 15
        line1 = doc_type + state + docnum + doc_cd + optional1
        optional2 = pad(_random_alnum(rng, rng.randint(2, 11), 0.9), 11) if rng.random() < 0.2 else "<" * 11
        line2 = dob + dob_cd + sex + exp + exp_cd + nationality + optional2
        composite = check_digit(line1[5:30] + line2[0:7] + line2[8:15] + line2[18:29])
        line2 += composite
        name, surname, given = _name_field(rng, 30)
        lines = [line1, line2, name]
    elif fmt in ("MRVA", "MRVB"):
        doc_type = rng.choice(VISA_TYPES)
        n = FORMATS[fmt][1]
        name, surname, given = _name_field(rng, n - 5)
        line1 = doc_type + state + name
        optional = pad(_random_alnum(rng, rng.randint(2, n - 28), 0.8), n - 28) if has_optional else "<" * (n - 28)
        lines = [line1, docnum + doc_cd + nationality + dob + dob_cd + sex + exp + exp_cd + optional]
    else:
        raise ValueError(fmt)
    n_lines, n_chars = FORMATS[fmt][:2]
    assert len(lines) == n_lines and all(len(l) == n_chars for l in lines), lines
    return {
        "format": fmt,
        "lines": lines,
        "document_type": doc_type.rstrip("<"),
        "issuing_state": state.rstrip("<"),
        "document_number": docnum.rstrip("<"),
        "nationality": nationality.rstrip("<"),
        "birth_date": dob,
        "sex": sex,
        "expiry_date": exp,
        "surname": surname,
        "given_names": given,
        "birth": birth,
        "expiry": expiry,
    }


# ---------------------------------------------------------------- rendering

_font_cache = {}


def font(path, size):
    key = (path, int(size))
    if key not in _font_cache:
        _font_cache[key] = ImageFont.truetype(path, int(size))
    return _font_cache[key]


def draw_mrz_text(draw, x, y_baseline, text, pitch_px, fill, font_path=OCRB_FONT, jitter=None, rng=None):
    """Draws text at a fixed character pitch, each character on the given baseline.

    jitter: max random per-character offset in px (printer imperfection)."""
    size = pitch_px / OCRB_ADVANCE_EM
    f = font(font_path, round(size * 4) / 4.0)
    for i, c in enumerate(text):
        dx = dy = 0.0
        if jitter and rng is not None:
            dx = rng.uniform(-jitter, jitter)
            dy = rng.uniform(-jitter, jitter)
        draw.text((x + i * pitch_px + dx, y_baseline + dy), c, font=f, fill=fill, anchor="ls")


# ---------------------------------------------------------------- image helpers

def perspective_coeffs(src, dst):
    """Coefficients for Image.transform(PERSPECTIVE) mapping output points dst to input src."""
    a = []
    b = []
    for (x, y), (u, v) in zip(dst, src):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.extend([u, v])
    return np.linalg.solve(np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)).tolist()


def apply_homography(coeffs, pts):
    a, b, c, d, e, f, g, h = coeffs
    out = []
    for x, y in pts:
        w = g * x + h * y + 1.0
        out.append(((a * x + b * y + c) / w, (d * x + e * y + f) / w))
    return out


def smooth_noise(rng, w, h, scale, octaves=3):
    """Low-frequency noise field in [0, 1] (value noise, bilinear upsampled)."""
    nrng = np.random.default_rng(rng.getrandbits(32))
    acc = np.zeros((h, w), dtype=np.float32)
    amp_total = 0.0
    for o in range(octaves):
        cells = max(2, int(scale * (2 ** o)))
        grid = nrng.random((cells + 1, cells + 1)).astype(np.float32)
        img = Image.fromarray((grid * 255).astype(np.uint8)).resize((w, h), Image.BICUBIC)
        amp = 0.5 ** o
        acc += np.asarray(img, dtype=np.float32) / 255.0 * amp
        amp_total += amp
    acc /= amp_total
    lo, hi = acc.min(), acc.max()
    return (acc - lo) / max(1e-6, hi - lo)


def lighting_field(rng, w, h, strength):
    """Multiplicative shading: a linear gradient, a soft spot and low-frequency blotches."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    lin = (xx / w - 0.5) * math.cos(ang) + (yy / h - 0.5) * math.sin(ang)
    field = 1.0 - strength * (lin + 0.5) * rng.uniform(0.5, 1.0)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    r = rng.uniform(0.3, 0.9) * max(w, h)
    spot = np.exp(-(((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)))
    field *= 1.0 - strength * 0.5 + strength * 0.5 * spot
    if strength > 0.2:
        blot = smooth_noise(rng, w, h, rng.uniform(1.5, 3.0), 2)
        field *= 1.0 - strength * 0.35 * blot
    return np.clip(field, 0.05, 1.2)


def motion_blur(arr, length, angle):
    """Averages the image along a direction (arr: float32 HxWxC or HxW)."""
    n = max(1, int(round(length)))
    if n <= 1:
        return arr
    acc = np.zeros_like(arr)
    dx, dy = math.cos(angle), math.sin(angle)
    for i in range(n):
        t = i - (n - 1) / 2.0
        sx, sy = int(round(t * dx)), int(round(t * dy))
        acc += np.roll(np.roll(arr, sy, axis=0), sx, axis=1)
    return acc / n


def jpeg_roundtrip(img, quality):
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=int(quality))
    buf.seek(0)
    return Image.open(buf).convert(img.mode)


def to_uint8(arr):
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
