"""Character names: normalised once at creation, and refused when two could be confused.

A name is normalised with NFKC (full-width letters and digits, compatibility forms) and trimmed.
It is refused, with a Chinese message naming it, when it

* contains an invisible character: zero-width (U+200B, U+200D, U+FEFF...), a bidirectional
  control (U+202E, U+2066...), any other format character (Unicode category Cf) or a control
  character (Cc) — two names that differ only there look the same in a post;
* equals another name after normalisation and case folding (``Ａ`` and ``a``);
* is a word :func:`game_rules.votes.parse_vote` reads specially: ``弃权`` (an abstention), or a
  vote label (``投票对象``, ``改票理由``...), which would split the post in the wrong place.

Votes are read with the same definition of invisible (:func:`strip_invisible`), so an invisible
character in a vote never makes it match, or miss, a name.

>>> normalise_names(["Ｐ０１", "饺子"])
['P01', '饺子']
>>> try:
...     normalise_names(["饺\\u200b子"])
... except CharacterNameError as err:
...     print(err.rule, err.message[:22])
name_invisible 角色名「饺子」含有不可见字符（U+200B）
>>> try:
...     normalise_names(["弃权"])
... except CharacterNameError as err:
...     print(err.rule)
name_keyword
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from game_rules.errors import CharacterNameError

#: what a vote post writes for an abstention (votes.py reads it from here)
ABSTAIN_WORD = "弃权"
#: the vote labels, NFKC-normalised as votes.py matches them (spaces, 對/像 tolerated)
VOTE_LABEL = re.compile(r"[投改]\s*票\s*(?:[对對]\s*[象像]|理\s*由)")
#: invisible characters a post may hide in a name: category Cf holds the zero-widths, the bidi
#: controls and the other format characters; Cc the control characters
_INVISIBLE_CATEGORIES = frozenset({"Cf", "Cc"})


def is_invisible(ch: str) -> bool:
    """Whether ``ch`` is a zero-width, bidi, format or control character.

    >>> is_invisible("\\u202e"), is_invisible("\\u200b"), is_invisible("a"), is_invisible(" ")
    (True, True, False, False)
    """
    return unicodedata.category(ch) in _INVISIBLE_CATEGORIES


def strip_invisible(text: str, keep: str = "\n\t") -> str:
    """``text`` without invisible characters (line breaks and tabs in ``keep`` stay).

    >>> strip_invisible("饺\\u200d子\\u202e\\n")
    '饺子\\n'
    """
    # the common case, ASCII: only the C0 controls and DEL can be invisible
    if text.isascii() and all(ch in keep or ch.isprintable() for ch in text):
        return text
    return "".join(ch for ch in text if ch in keep or not is_invisible(ch))


def _codes(chars: Iterable[str]) -> str:
    return "、".join(f"U+{ord(ch):04X}" for ch in dict.fromkeys(chars))


def _fold(name: str) -> str:
    return "".join(name.casefold().split())


def nfkc_name(name: str) -> str:
    """``name`` as stored: NFKC-normalised and trimmed, nothing checked (for references to a
    character, such as the keys of fixed roles).

    >>> nfkc_name(" Ｐ０１ ")
    'P01'
    """
    return unicodedata.normalize("NFKC", str(name)).strip()


def normalise_name(name: str) -> str:
    """One name, NFKC-normalised and trimmed; refused if it is empty, holds an invisible
    character or is a vote keyword (see the module)."""
    text = nfkc_name(name)
    hidden = [ch for ch in text if is_invisible(ch)]
    if hidden:
        shown = strip_invisible(text, keep="")
        raise CharacterNameError(
            "name_invisible",
            f"角色名「{shown}」含有不可见字符（{_codes(hidden)}）：请删除零宽、双向控制或控制字符",
        )
    if not text:
        raise CharacterNameError("empty_character", "角色名不能为空")
    if _fold(text) == ABSTAIN_WORD:
        raise CharacterNameError(
            "name_keyword", f"角色名「{text}」是投票关键词，投票时无法与弃权区分：请换一个名字"
        )
    if VOTE_LABEL.search(text):
        raise CharacterNameError(
            "name_keyword",
            f"角色名「{text}」含有投票格式的标签（投票对象、投票理由等）：请换一个名字",
        )
    return text


def normalise_names(names: Iterable[str]) -> list[str]:
    """Every name normalised (:func:`normalise_name`); refused when two collide after it."""
    given = [str(n) for n in names]
    out = [normalise_name(n) for n in given]
    seen: dict[str, str] = {}
    for raw, name in zip(given, out, strict=True):
        key = _fold(name)
        if key in seen:
            first = seen[key]
            same = "重复" if first == name else f"规范化后与「{first}」相同"
            raise CharacterNameError(
                "name_collision", f"角色名「{raw}」{same}：投票时无法区分，请换一个名字"
            )
        seen[key] = name
    return out
