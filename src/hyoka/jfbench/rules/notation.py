"""Notation constraints: how numbers, dates, codes and names are written.

Written from reading upstream's ``constraints/notation`` (c8fed01). Most ask for at least
one occurrence of a pattern (a CamelCase word, a ``YYYY年MM月DD日`` date, a ``¥1,234``
amount); the number checks instead judge *every* number found: every decimal must have
exactly the required places, every integer must be grouped, every phone-like run must be a
Japanese phone number of the required shape. Patterns use Python's Unicode-aware ``\\d``
and ``\\b`` as upstream's do, so full-width digits count as digits and a Japanese letter is
a word character (``2024年01月05日です`` has no word boundary after 日).
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal


def _has(pattern: str, flags: int = 0) -> Callable[[str], bool]:
    compiled = re.compile(pattern, flags)

    def check(value: str) -> bool:
        return compiled.search(value) is not None

    return check


camelcase = _has(r"\b(?:[A-Z][a-z0-9]+){2,}\b")
currency = _has(r"(?<!\d)¥(?:0|[1-9]\d{0,2}(?:,\d{3})*)(?![\d.])")
date = _has(r"\b\d{4}年\d{2}月\d{2}日\b")
furigana = _has(r"<ruby>[^<]+<rt>[^<]+</rt></ruby>", re.DOTALL)
snakecase = _has(r"\b[a-z]+(?:_[a-z]+)+\b")
time = _has(r"\b([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?\b")
titlecase = _has(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")
#: a number followed by an SI base unit (or gram) with an optional SI prefix
unit = _has(r"\d+(?:\.\d+)?\s*(?:da|[YZEPTGMkhdcmunpfazyμu])?(?:m|g|s|A|K|mol|cd)(?![A-Za-z0-9_])")


def zero_padding(width: int) -> Callable[[str], bool]:
    """A number of ``width`` digits starting with 0, standing alone."""
    if width <= 0:
        return lambda value: False  # upstream's check raises, which counts as a failure
    return _has(rf"\b0\d{{{width - 1}}}\b")


_DECIMAL = re.compile(r"(?<![\w/])[+\-\u2212]?(?:\d+\.\d*|\.\d+)(?:[eE][+\-\u2212]?\d+)?(?!\w)")
_MANTISSA = re.compile(r"^[+\-]?((?:\d+\.\d*|\.\d+))([eE][+\-]?\d+)?$")


def _places(token: str) -> int:
    token = token.replace("\u2212", "-").replace("\uff0e", ".")
    found = _MANTISSA.match(token)
    if found is not None:
        mantissa = found.group(1)
    else:
        fallback = re.search(r"\d*\.\d*", token)
        mantissa = fallback.group(0) if fallback is not None else "."
    return len(re.sub(r"\D", "", mantissa.split(".", 1)[1]))


def decimal_places(places: int) -> Callable[[str], bool]:
    """Every decimal number (full-width point and minus read as ASCII) has exactly
    ``places`` digits after its point; a text without decimals passes."""

    def check(value: str) -> bool:
        text = value.replace("\uff0e", ".").replace("\u2212", "-")
        return all(_places(m.group(0)) == places for m in _DECIMAL.finditer(text))

    return check


def rounding(digits: int) -> Callable[[str], bool]:
    """At least one decimal, and every decimal unchanged by rounding half up to ``digits``
    places (so ``3.1`` passes for 2 digits, ``3.145`` does not)."""
    quantum = Decimal("1." + "0" * digits)

    def check(value: str) -> bool:
        numbers = re.findall(r"-?\d+\.\d+", value)
        if not numbers:
            return False
        try:
            return all(
                Decimal(n) == Decimal(n).quantize(quantum, rounding=ROUND_HALF_UP) for n in numbers
            )
        except ArithmeticError:  # full-width digits Decimal refuses: upstream's check fails
            return False

    return check


_INTEGER = re.compile(r"[+\-−]?(?:\d(?:[\d,_\s]*\d)?)")
_SEPARATORS = frozenset(", _")
_SPACES = ("\u00a0", "\u2009", "\u202f")


def _grouped(core: str, size: int, separator: str) -> bool:
    if core.startswith(separator) or core.endswith(separator) or separator * 2 in core:
        return False
    parts = core.split(separator)
    if not all(part.isdigit() for part in parts):
        return False
    (*right,) = reversed(parts)
    return 1 <= len(right[-1]) <= size and all(len(p) == size for p in right[:-1])


def grouping(size: int) -> Callable[[str], bool]:
    """Every integer (after NFKC) longer than ``size`` digits is grouped from the right in
    ``size``-digit groups by one separator (comma, underscore or space); a text without
    integers passes. A run next to a period is part of a decimal and skipped."""

    def check(value: str) -> bool:
        text = unicodedata.normalize("NFKC", value)
        for space in _SPACES:
            text = text.replace(space, " ")
        for found in _INTEGER.finditer(text):
            start, end = found.span()
            if (start > 0 and text[start - 1] == ".") or (end < len(text) and text[end] == "."):
                continue
            core = found.group(0).lstrip("+−-")
            used = {char for char in core if char in _SEPARATORS}
            if len(used) > 1:
                return False
            if not used:
                digits = "".join(char for char in core if char.isdigit())
                if not digits or len(digits) > size:
                    return False
                continue
            if not _grouped(core, size, used.pop()):
                return False
        return True

    return check


_ARABIC = re.compile(r"[+\-−]?(?:[0-9\uFF10-\uFF19]+(?:[._,，．・][0-9\uFF10-\uFF19]+)*)")
_KANSUJI = re.compile("[〇零一二三四五六七八九十百千]+")


def kanji_numerals(value: str) -> bool:
    """No Arabic digits (ASCII or full-width) at all; a text without numbers passes."""
    return _ARABIC.search(value) is None


def no_kanji_numerals(value: str) -> bool:
    """No run of kanji numerals (after NFKC): note 一 in 一緒 counts."""
    return _KANSUJI.search(unicodedata.normalize("NFKC", value)) is None


_PHONE_DASHES = "-‐‒–—―－"
_PHONE = re.compile(r"(?<!\w)\+?\d[\d\-\s()]{8,}\d(?!\w)")


def _phone_ok(token: str, hyphens: bool) -> bool:
    if not hyphens:
        return re.fullmatch(r"0\d{9,10}", token) is not None
    if re.search(r"[^\d\-]", token):
        return False
    if token.startswith("-") or token.endswith("-") or "--" in token:
        return False
    digits = token.replace("-", "")
    return digits.isdigit() and len(digits) in (10, 11) and digits.startswith("0") and "-" in token


def phone_number(hyphens: bool) -> Callable[[str], bool]:
    """At least one phone-like run (after NFKC and dashes read as ``-``), and every one a
    10- or 11-digit number starting with 0: bare digits, or (``hyphens``) digits and
    hyphens with at least one hyphen."""

    def check(value: str) -> bool:
        text = unicodedata.normalize("NFKC", value)
        for dash in _PHONE_DASHES:
            text = text.replace(dash, "-")
        tokens = [m.group(0) for m in _PHONE.finditer(text)]
        return bool(tokens) and all(_phone_ok(token, hyphens) for token in tokens)

    return check


_POSTAL_DASHES = "−‐‒–—―－"


def postal_code(hyphens: bool) -> Callable[[str], bool]:
    """At least one Japanese postal code: ``123-4567`` (``hyphens``) or ``1234567``, not
    next to another digit."""
    pattern = re.compile(r"(?<!\d)\d{3}-\d{4}(?!\d)" if hyphens else r"(?<!\d)\d{7}(?!\d)")

    def check(value: str) -> bool:
        text = unicodedata.normalize("NFKC", value)
        for dash in _POSTAL_DASHES:
            text = text.replace(dash, "-")
        return pattern.search(text) is not None

    return check


_EMAIL = re.compile(
    r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@"
    r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
)
_OPENERS = frozenset("<([{\u300c\u300e\uff08\u3010\u3008\u300a`'\"")
_CLOSERS = frozenset(">)]}\u300d\u300f\uff09\u3011\u3009\u300b.,;:!?`'\"")
_DOT_ATOM = re.compile(
    r"^(?:[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*)$"
)
_QUOTED = re.compile(r'^"([\x20-\x21\x23-\x5B\x5D-\x7E]|\\[\x20-\x7E])*"$')
_LABEL = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")


def _trimmed(token: str) -> str:
    while token and token[0] in _OPENERS:
        token = token[1:]
    while token and token[-1] in _CLOSERS:
        token = token[:-1]
    return token


def _domain_ok(domain: str) -> bool:
    if len(domain) >= 2 and domain[0] == "[" and domain[-1] == "]":
        inner = domain[1:-1]
        if inner.lower().startswith("ipv6:"):
            inner = inner[5:]
        try:
            ipaddress.ip_address(inner)
        except ValueError:
            return False
        return True
    try:
        ascii_domain = domain.encode("idna").decode("ascii")
    except UnicodeError:
        return False
    labels = ascii_domain.split(".")
    return (
        len(ascii_domain) <= 253
        and len(labels) >= 2
        and all(_LABEL.fullmatch(label) for label in labels)
    )


def _email_ok(address: str) -> bool:
    if len(address) > 254 or "@" not in address:
        return False
    local, domain = address.rsplit("@", 1)
    if not local or not domain or not _domain_ok(domain) or len(local) > 64:
        return False
    return bool(_DOT_ATOM.fullmatch(local) or _QUOTED.fullmatch(local))


def email_address(value: str) -> bool:
    """At least one e-mail-like run (after NFKC, wrapping brackets and trailing
    punctuation trimmed), and every one a valid address (a dotted domain of DNS labels)."""
    tokens = [
        t
        for t in (
            _trimmed(m.group(0)) for m in _EMAIL.finditer(unicodedata.normalize("NFKC", value))
        )
        if t
    ]
    return bool(tokens) and all(_email_ok(token) for token in tokens)
