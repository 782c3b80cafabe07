"""Go's regular expressions (RE2 syntax), translated into equivalent Python patterns."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass


class RegexSyntaxError(Exception):
    """A pattern Go's regexp/syntax rejects (with Go's error code and the offending text)."""

    def __init__(self, code: str, expr: str) -> None:
        super().__init__(f"error parsing regexp: {code}: `{expr}`")
        self.code = code
        self.expr = expr


@dataclass(frozen=True)
class GoRegex:
    """A translated pattern and the names of its capture groups."""

    pattern: re.Pattern[str]
    names: tuple[str, ...]  # one per capture group, "" when unnamed


_WORD = "[0-9A-Za-z_]"
_PERL_CLASSES: dict[str, tuple[tuple[int, int], ...]] = {
    "d": ((0x30, 0x39),),
    "s": ((0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)),
    "w": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
}
_POSIX_CLASSES: dict[str, tuple[tuple[int, int], ...]] = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}
_MAX_RUNE = 0x10FFFF


def _negate_ranges(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    low = 0
    for lo, hi in _merge_ranges(ranges):
        if lo > low:
            out.append((low, lo - 1))
        low = hi + 1
    if low <= _MAX_RUNE:
        out.append((low, _MAX_RUNE))
    return out


def _merge_ranges(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


@functools.lru_cache(maxsize=64)
def _category_ranges(name: str) -> tuple[tuple[int, int], ...]:
    """Code point ranges of a Unicode general category (one letter or two) or "Any"."""
    if name == "Any":
        return ((0, _MAX_RUNE),)
    ranges: list[tuple[int, int]] = []
    start = -1
    for code in range(_MAX_RUNE + 2):
        inside = code <= _MAX_RUNE and unicodedata.category(chr(code)).startswith(name)
        if inside and start < 0:
            start = code
        elif not inside and start >= 0:
            ranges.append((start, code - 1))
            start = -1
    return tuple(ranges)


_CATEGORIES = frozenset(
    {
        "L",
        "Lu",
        "Ll",
        "Lt",
        "Lm",
        "Lo",
        "M",
        "Mn",
        "Mc",
        "Me",
        "N",
        "Nd",
        "Nl",
        "No",
        "P",
        "Pc",
        "Pd",
        "Ps",
        "Pe",
        "Pi",
        "Pf",
        "Po",
        "S",
        "Sm",
        "Sc",
        "Sk",
        "So",
        "Z",
        "Zs",
        "Zl",
        "Zp",
        "C",
        "Cc",
        "Cf",
        "Cs",
        "Co",
        "Cn",
        "Any",
    }
)


def _class_char(code: int) -> str:
    char = chr(code)
    if char.isascii() and char.isalnum():
        return char
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _emit_class(ranges: Sequence[tuple[int, int]], negate: bool) -> str:
    merged = _merge_ranges(ranges)
    if not merged:
        return "[^\\x00-\\U0010ffff]" if not negate else "[\\x00-\\U0010ffff]"
    body = "".join(
        _class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}" for lo, hi in merged
    )
    return f"[{'^' if negate else ''}{body}]"


class _RegexTranslator:
    """Translate a Go (RE2) pattern into an equivalent Python pattern."""

    def __init__(self, pattern: str) -> None:
        self.src = pattern
        self.pos = 0
        self.flags = {"i": False, "m": False, "s": False, "U": False}
        self.names: list[str] = []
        self.depth = 0

    def error(self, code: str, expr: str | None = None) -> RegexSyntaxError:
        return RegexSyntaxError(code, self.src if expr is None else expr)

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.src[index] if index < len(self.src) else ""

    def translate(self) -> str:
        out = self.alternation()
        if self.pos < len(self.src):
            raise self.error("unexpected )")
        return out

    def alternation(self) -> str:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return "|".join(branches)

    def sequence(self) -> str:
        out: list[str] = []
        while self.pos < len(self.src) and self.peek() not in "|)":
            if self.src.startswith("\\Q", self.pos):
                out.extend(self.quoted())
                if out:
                    out[-1] = self.quantified(out[-1])
                continue
            atom = self.atom()
            if atom is None:
                continue
            if atom == "":
                raise self.error("missing argument to repetition operator", self.operator_text())
            out.append(self.quantified(atom))
        return "".join(out)

    def operator_text(self) -> str:
        repeat = self.repeat_at(self.pos)
        end = repeat[2] if repeat is not None else self.pos + 1
        if self.src[end : end + 1] == "?":
            end += 1
        return self.src[self.pos : end]

    def quoted(self) -> list[str]:
        self.pos += 2
        end = self.src.find("\\E", self.pos)
        text = self.src[self.pos :] if end < 0 else self.src[self.pos : end]
        self.pos = len(self.src) if end < 0 else end + 2
        return [self.literal(c) for c in text]

    def literal(self, char: str) -> str:
        escaped = re.escape(char)
        return f"(?i:{escaped})" if self.flags["i"] and char.lower() != char.upper() else escaped

    def atom(self) -> str | None:
        char = self.peek()
        if char in "*+?":
            return ""
        if char == "{" and self.repeat_at(self.pos) is not None:
            return ""
        self.pos += 1
        if char == "(":
            return self.group()
        if char == "[":
            return self.char_class()
        if char == ".":
            return "[\\s\\S]" if self.flags["s"] else "[^\\n]"
        if char == "^":
            return "(?:(?<![^\\n]))" if self.flags["m"] else "(?:\\A)"
        if char == "$":
            return "(?:(?![^\\n]))" if self.flags["m"] else "(?:\\Z)"
        if char == "\\":
            return self.escape()
        return self.literal(char)

    def repeat_at(self, pos: int) -> tuple[int, int, int] | None:
        """Parse ``{n}``, ``{n,}`` or ``{n,m}`` at pos: (min, max or -1, end) or None."""
        match = re.compile(r"\{(\d+)(,(\d*))?\}").match(self.src, pos)
        if not match:
            return None
        low = int(match.group(1))
        high = low if match.group(2) is None else (int(match.group(3)) if match.group(3) else -1)
        return low, high, match.end()

    def quantified(self, atom: str) -> str:
        char = self.peek()
        start = self.pos
        if char in ("*", "+", "?"):
            self.pos += 1
            quantifier = char
        elif char == "{" and (repeat := self.repeat_at(self.pos)) is not None:
            low, high, end = repeat
            if low > 1000 or high > 1000 or (high != -1 and high < low):
                raise self.error("invalid repeat count", self.src[start:end])
            self.pos = end
            quantifier = self.src[start:end]
        else:
            return atom
        lazy = self.peek() == "?"
        if lazy:
            self.pos += 1
        if self.flags["U"]:
            lazy = not lazy
        nxt = self.peek()
        if nxt in ("*", "+", "?") or (nxt == "{" and self.repeat_at(self.pos) is not None):
            raise self.error("invalid nested repetition operator", self.src[start : self.pos + 1])
        return f"(?:{atom}){quantifier}{'?' if lazy else ''}"

    def group(self) -> str | None:
        name: str | None = None
        if self.peek() == "?":
            opening = self.pos - 1
            rest = self.src[self.pos + 1 :]
            if rest.startswith("P<") or rest.startswith("<"):
                self.pos += 3 if rest.startswith("P<") else 2
                end = self.src.find(">", self.pos)
                candidate = self.src[self.pos : end] if end >= 0 else ""
                if end < 0 or not re.fullmatch(r"[A-Za-z0-9_]+", candidate):
                    shown = self.src[opening : end + 1] if end >= 0 else self.src[opening:]
                    raise self.error("invalid named capture", shown)
                name = candidate
                self.pos = end + 1
            else:
                return self.flag_group()
        self.names.append(name or "")
        return "(" + self.group_body() + ")"

    def group_body(self) -> str:
        saved = dict(self.flags)
        self.depth += 1
        inner = self.alternation()
        if self.peek() != ")":
            raise self.error("missing closing )")
        self.pos += 1
        self.depth -= 1
        self.flags = saved
        return inner

    def flag_group(self) -> str | None:
        start = self.pos - 1
        match = re.compile(r"\?([imsU]*)(?:-([imsU]*))?([:)])").match(self.src, self.pos)
        if not match or (match.group(2) is not None and not match.group(2)):
            raise self.error("invalid or unsupported Perl syntax", self.src[start : start + 3])
        self.pos = match.end()
        if match.group(3) == ":":
            saved = dict(self.flags)
            self.set_flags(match.group(1), match.group(2) or "")
            body = self.group_body()
            self.flags = saved
            return f"(?:{body})"
        self.set_flags(match.group(1), match.group(2) or "")
        return None

    def set_flags(self, on: str, off: str) -> None:
        for flag in on:
            self.flags[flag] = True
        for flag in off:
            self.flags[flag] = False

    def escape(self) -> str:
        char = self.peek()
        if char == "":
            raise self.error("trailing backslash at end of expression", "")
        self.pos += 1
        simple = {"a": "\\x07", "f": "\\x0c", "t": "\\t", "n": "\\n", "r": "\\r", "v": "\\x0b"}
        if char in simple:
            return simple[char]
        if char == "A":
            return "(?:\\A)"
        if char == "z":
            return "(?:\\Z)"
        if char in "bB":
            return self.word_boundary(char == "b")
        ranges = self.class_escape(char)
        if ranges is not None:
            return self.wrap_class(_emit_class(ranges[0], ranges[1]))
        code = self.char_escape(char)
        return self.literal(chr(code))

    def word_boundary(self, at: bool) -> str:
        before, after = f"(?<={_WORD})", f"(?={_WORD})"
        nbefore, nafter = f"(?<!{_WORD})", f"(?!{_WORD})"
        if at:
            return f"(?:{before}{nafter}|{nbefore}{after})"
        return f"(?:{before}{after}|{nbefore}{nafter})"

    def wrap_class(self, cls: str) -> str:
        return f"(?i:{cls})" if self.flags["i"] else cls

    def class_escape(self, char: str) -> tuple[list[tuple[int, int]], bool] | None:
        """\\d \\s \\w (and negations), \\pX and \\p{X}: (ranges, negated) or None."""
        if char.lower() in _PERL_CLASSES:
            return list(_PERL_CLASSES[char.lower()]), char.isupper()
        if char not in "pP":
            return None
        negate = char == "P"
        if self.peek() == "{":
            end = self.src.find("}", self.pos)
            if end < 0:
                raise self.error("invalid character class range", self.src[self.pos - 2 :])
            name = self.src[self.pos + 1 : end]
            self.pos = end + 1
        else:
            name = self.peek()
            self.pos += 1
        if name.startswith("^"):
            negate, name = not negate, name[1:]
        if name not in _CATEGORIES:  # scripts (\p{Greek}) need tables Python does not ship
            raise self.error("unsupported Unicode class (only general categories)", name)
        return list(_category_ranges(name)), negate

    def char_escape(self, char: str) -> int:
        if char == "x":
            return self.hex_escape()
        if "0" <= char <= "7":
            nxt = self.peek()
            if char != "0" and not ("0" <= nxt <= "7"):
                raise self.error("invalid escape sequence", f"\\{char}")
            digits = char
            while len(digits) < 3 and "0" <= self.peek() <= "7":
                digits += self.peek()
                self.pos += 1
            return int(digits, 8)
        if char.isascii() and not char.isalnum():
            return ord(char)
        raise self.error("invalid escape sequence", f"\\{char}")

    def hex_escape(self) -> int:
        if self.peek() == "{":
            end = self.src.find("}", self.pos)
            digits = self.src[self.pos + 1 : end] if end >= 0 else ""
            if (
                end < 0
                or not re.fullmatch(r"[0-9A-Fa-f]{1,8}", digits)
                or int(digits, 16) > _MAX_RUNE
            ):
                raise self.error("invalid escape sequence", self.src[self.pos - 2 : end + 1])
            self.pos = end + 1
            return int(digits, 16)
        digits = self.src[self.pos : self.pos + 2]
        if not re.fullmatch(r"[0-9A-Fa-f]{2}", digits):
            raise self.error("invalid escape sequence", self.src[self.pos - 2 : self.pos + 2])
        self.pos += 2
        return int(digits, 16)

    def char_class(self) -> str:
        start = self.pos - 1
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        ranges: list[tuple[int, int]] = []
        first = True
        while True:
            if self.pos >= len(self.src):
                raise self.error("missing closing ]", self.src[start:])
            char = self.peek()
            if char == "]" and not first:
                self.pos += 1
                break
            first = False
            ranges.extend(self.class_item())
        return self.wrap_class(_emit_class(ranges, negate))

    def class_item(self) -> list[tuple[int, int]]:
        if self.src.startswith("[:", self.pos):
            end = self.src.find(":]", self.pos + 2)
            if end >= 0:
                name = self.src[self.pos + 2 : end]
                negate = name.startswith("^")
                table = _POSIX_CLASSES.get(name.lstrip("^"))
                if table is None:
                    raise self.error("invalid character class range", self.src[self.pos : end + 2])
                self.pos = end + 2
                return _negate_ranges(table) if negate else list(table)
        low = self.class_char()
        if isinstance(low, list):
            return low
        if self.peek() == "-" and self.peek(1) not in ("]", ""):
            self.pos += 1
            high = self.class_char()
            if isinstance(high, list) or high < low:
                raise self.error("invalid character class range", self.src[self.pos - 3 : self.pos])
            return [(low, high)]
        return [(low, low)]

    def class_char(self) -> int | list[tuple[int, int]]:
        char = self.peek()
        self.pos += 1
        if char != "\\":
            return ord(char)
        esc = self.peek()
        self.pos += 1
        simple = {"a": 7, "f": 12, "t": 9, "n": 10, "r": 13, "v": 11}
        if esc in simple:
            return simple[esc]
        found = self.class_escape(esc)
        if found is not None:
            ranges, negate = found
            return _negate_ranges(ranges) if negate else ranges
        return self.char_escape(esc)


@functools.lru_cache(maxsize=256)
def compile_go_regex(pattern: str) -> GoRegex:
    """Translate and compile a Go pattern (cached), or raise RegexSyntaxError."""
    translator = _RegexTranslator(pattern)
    python = translator.translate()
    try:
        compiled = re.compile(python)
    except re.error as exc:  # pragma: no cover - the translation is meant to be valid
        raise RegexSyntaxError(f"unsupported pattern ({exc})", pattern) from None
    return GoRegex(compiled, tuple(translator.names))
