"""Addresses a person could be fooled by (issue 31, cases 8 and 9): look-alike letters
of another script (`аnn@example.org` with a Cyrillic а), invisible characters
(`da\u200bn@...`), bidirectional controls (`\u202eevil@...` shown reversed in a list),
and RFC 2047 encoded words, which are never an address. An internationalised address
in one script (`иван@пример.рф`, `jörg@exämple.org`) stays allowed.

The script of a letter is read from its Unicode name (LATIN, CYRILLIC, GREEK, ...);
Chinese, Japanese and Korean letters count as one script, as they mix in one name.
"""

from __future__ import annotations

import unicodedata

__all__ = ["lookalike_problem"]

_HAN = frozenset({"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "IDEOGRAPHIC"})


def _script(char: str) -> str | None:
    """The script of a letter (None for digits, punctuation and the like)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    name = unicodedata.name(char, "")
    word = name.split(" ", 1)[0]
    return "HAN" if word in _HAN else word or None


def lookalike_problem(address: str) -> str | None:
    """Why ADDRESS is refused as one a reader could mistake for another, or None."""
    if "=?" in address or "?=" in address:
        return (f"{address!r} is an encoded word (RFC 2047), not a mail address: an "
                "address is written as it is")
    for char in address:
        category = unicodedata.category(char)
        if category in ("Cf", "Cc", "Co", "Cn", "Zl", "Zp") or (
                category == "Zs" and char != " "):
            return (f"the address holds an invisible or direction-changing character "
                    f"(U+{ord(char):04X}), so it does not read as what it is")
    local, _, domain = address.rpartition("@")
    for part in (local, *domain.split(".")):
        scripts = {s for c in part if (s := _script(c)) is not None}
        if len(scripts) > 1:
            return (f"the address mixes letters of {' and '.join(sorted(scripts)).lower()} "
                    f"scripts in {part!r}: look-alike letters are refused (write it in "
                    "one script)")
    return None
