"""ICAO 9303-3/-4 machine readable zone: check digits and the TD3 (passport) layout."""

from __future__ import annotations

WEIGHTS = (7, 3, 1)


def char_value(c: str) -> int:
    if c == "<":
        return 0
    if c.isdigit():
        return int(c)
    if "A" <= c <= "Z":
        return ord(c) - ord("A") + 10
    raise ValueError(f"invalid MRZ character {c!r}")


def check_digit(field: str) -> str:
    return str(sum(char_value(c) * WEIGHTS[i % 3] for i, c in enumerate(field)) % 10)


def pad(s: str, n: int) -> str:
    if len(s) > n:
        raise ValueError(f"{s!r} longer than {n}")
    return s + "<" * (n - len(s))


def name_field(surname: str, given_names: list[str], width: int) -> str:
    primary = surname.replace(" ", "<").replace("-", "<")
    secondary = "<".join(g.replace("-", "<") for g in given_names)
    return pad(f"{primary}<<{secondary}", width)


def td3(*, document_code: str, issuing_state: str, surname: str, given_names: list[str],
        document_number: str, nationality: str, birth: str, sex: str, expiry: str,
        personal_number: str = "", empty_personal_number_check: str = "<") -> tuple[str, str]:
    """The two 44-character lines of a TD3 MRZ.

    ICAO 9303-4 4.2.2: when the personal number field (positions 29-42 of line 2) holds only
    fillers, its check digit (position 43) may be '<' or '0'. `empty_personal_number_check`
    selects which; both give the same composite check digit since '<' counts as 0.
    """
    line1 = pad(f"{pad(document_code, 2)}{issuing_state}" + name_field(surname, given_names, 39), 44)
    if len(line1) != 44:
        raise ValueError("line 1 length")
    docnum = pad(document_number, 9)
    if len(document_number) > 9:
        raise ValueError("document number overflow not supported by this generator")
    personal = pad(personal_number, 14)
    if personal_number:
        personal_cd = check_digit(personal)
    else:
        if empty_personal_number_check not in ("<", "0"):
            raise ValueError("empty personal number check digit must be '<' or '0'")
        personal_cd = empty_personal_number_check
    line2 = (docnum + check_digit(docnum) + nationality + birth + check_digit(birth) + sex
             + expiry + check_digit(expiry) + personal + personal_cd)
    composite_input = line2[0:10] + line2[13:20] + line2[21:43]
    line2 += check_digit(composite_input)
    if len(line2) != 44:
        raise ValueError("line 2 length")
    return line1, line2
