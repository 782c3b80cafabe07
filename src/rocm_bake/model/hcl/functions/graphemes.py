"""Extended grapheme clusters (Unicode UAX #29), as go-textseg counts "characters" for
``strlen``, ``substr``, ``reverse`` and format widths.

Not the ``regex`` module's ``\\X``: that follows Unicode 15.1+, whose Indic conjunct rule (GB9c)
joins "क्ष" into one cluster, while buildx 0.29.1 (go-textseg v15) counts 2 — see the
``graphemes`` cases in tests/buildx/test_families.py."""

from __future__ import annotations

import unicodedata

_HANGUL_L = ((0x1100, 0x115F), (0xA960, 0xA97C))
_HANGUL_V = ((0x1160, 0x11A7), (0xD7B0, 0xD7C6))
_HANGUL_T = ((0x11A8, 0x11FF), (0xD7CB, 0xD7FB))
_PICTOGRAPHIC = (
    (0x00A9, 0x00A9),
    (0x00AE, 0x00AE),
    (0x203C, 0x203C),
    (0x2049, 0x2049),
    (0x2122, 0x2122),
    (0x2139, 0x2139),
    (0x2194, 0x21AA),
    (0x231A, 0x23FF),
    (0x24C2, 0x24C2),
    (0x25AA, 0x25FE),
    (0x2600, 0x27BF),
    (0x2934, 0x2935),
    (0x2B05, 0x2B55),
    (0x3030, 0x3030),
    (0x303D, 0x303D),
    (0x3297, 0x3299),
    (0x1F000, 0x1F1E5),
    (0x1F200, 0x1F3FA),
    (0x1F400, 0x1FAFF),
    (0x1FC00, 0x1FFFD),
)


_PREPEND = (
    (0x0600, 0x0605),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x0D4E, 0x0D4E),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x111C2, 0x111C3),
    (0x1193F, 0x1193F),
    (0x11941, 0x11941),
    (0x11A3A, 0x11A3A),
    (0x11A84, 0x11A89),
    (0x11D46, 0x11D46),
    (0x11F02, 0x11F02),
)


def _in_ranges(code: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(lo <= code <= hi for lo, hi in ranges)


def _grapheme_class(char: str) -> str:
    code = ord(char)
    if char == "\r":
        return "CR"
    if char == "\n":
        return "LF"
    if char == "\u200d":
        return "ZWJ"
    if 0x1F1E6 <= code <= 0x1F1FF:
        return "RI"
    if _in_ranges(code, _PREPEND):
        return "Prepend"
    category = unicodedata.category(char)
    if category in ("Mn", "Me") or code == 0x200C or 0x1F3FB <= code <= 0x1F3FF:
        return "Extend"
    if 0xFF9E <= code <= 0xFF9F or 0xE0020 <= code <= 0xE007F:
        return "Extend"
    if category == "Mc" or code in (0x0E33, 0x0EB3):
        return "SpacingMark"
    if category in ("Cc", "Zl", "Zp") or (category == "Cf" and code not in (0x200C, 0x200D)):
        return "Control"
    return _hangul_or_other(code)


def _hangul_or_other(code: int) -> str:
    if _in_ranges(code, _HANGUL_L):
        return "L"
    if _in_ranges(code, _HANGUL_V):
        return "V"
    if _in_ranges(code, _HANGUL_T):
        return "T"
    if 0xAC00 <= code <= 0xD7A3:
        return "LV" if (code - 0xAC00) % 28 == 0 else "LVT"
    if _in_ranges(code, _PICTOGRAPHIC):
        return "Pict"
    return "Other"


_HANGUL_JOINS = {
    "L": ("L", "V", "LV", "LVT"),
    "LV": ("V", "T"),
    "V": ("V", "T"),
    "LVT": ("T",),
    "T": ("T",),
}


def _joins(prev: str, cur: str, state: dict[str, int]) -> bool:
    """Whether there is no grapheme boundary between two characters of these classes."""
    if prev == "CR" and cur == "LF":
        return True
    if prev in ("CR", "LF", "Control") or cur in ("CR", "LF", "Control"):
        return False
    if cur in _HANGUL_JOINS.get(prev, ()):
        return True
    if cur in ("Extend", "ZWJ", "SpacingMark") or prev == "Prepend":
        return True
    if prev == "ZWJ" and cur == "Pict" and state["pict_zwj"]:
        return True
    return prev == "RI" and cur == "RI" and state["ri"] % 2 == 1


def graphemes(text: str) -> list[str]:
    """Split text into extended grapheme clusters."""
    if text.isascii():
        return _ascii_clusters(text)
    clusters: list[str] = []
    prev = ""
    state = {"ri": 0, "pict_zwj": 0, "pict": 0}
    for char in text:
        cls = _grapheme_class(char)
        if clusters and _joins(prev, cls, state):
            clusters[-1] += char
        else:
            clusters.append(char)
            state["pict"] = 0
        state["ri"] = state["ri"] + 1 if cls == "RI" else 0
        if cls == "Pict":
            state["pict"] = 1
        state["pict_zwj"] = int(cls == "ZWJ" and state["pict"] == 1)
        if cls not in ("Extend", "ZWJ", "Pict"):
            state["pict"] = 0
        prev = cls
    return clusters


def _ascii_clusters(text: str) -> list[str]:
    """ASCII text's clusters: every character is one of its own, but CR LF is one."""
    if "\r\n" not in text:
        return list(text)
    clusters: list[str] = []
    for char in text:
        if char == "\n" and clusters and clusters[-1] == "\r":
            clusters[-1] += char
        else:
            clusters.append(char)
    return clusters
