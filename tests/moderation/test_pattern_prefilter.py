"""The literal pre-filter of sentence patterns never changes what the patterns find."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from moderation.normalize import normalize
from moderation.patterns import default_patterns, required_literals

ROOT = Path(__file__).resolve().parents[2]


def _corpus_texts() -> list[str]:
    texts: list[str] = []
    for path in sorted((ROOT / "corpus").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"])
    return [*texts, "我拿人格担保他是好人", "拿我妈*担保", "如果我是狼我全家不得好死", ""]


def _assert_prefilter_agrees(texts: list[str]) -> None:
    matcher = default_patterns()
    for text in texts:
        nt = normalize(text)
        assert matcher.candidates(nt) == matcher.candidates(nt, prefilter=False), text


def test_prefilter_finds_what_every_pattern_finds() -> None:
    _assert_prefilter_agrees(_corpus_texts())


def test_the_prefilter_and_required_literals_hold_on_the_seeds(seeds_dir: Path) -> None:
    lines = []
    for path in sorted(seeds_dir.glob("*.txt")):
        lines += [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    assert len(lines) > 100  # the three rule posts, line by line
    _assert_prefilter_agrees(lines)
    _assert_matches_hold_a_required_literal(lines)


def _literal_pieces() -> list[str]:
    pieces: set[str] = set()
    for p in default_patterns().patterns:
        pieces |= set(re.findall(r"[\u4e00-\u9fff]+", p.spec.regex))
    return sorted(pieces)


_PIECES = _literal_pieces()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(_PIECES), st.sampled_from(["，", " ", "*", "3号", "qq", "12:30"])
        ),
        max_size=12,
    ).map("".join)
)
def test_prefilter_is_exact_on_pattern_fragments(text: str) -> None:
    matcher = default_patterns()
    nt = normalize(text)
    assert matcher.candidates(nt) == matcher.candidates(nt, prefilter=False)


def _assert_matches_hold_a_required_literal(texts: list[str]) -> None:
    patterns = [(p, required_literals(p.spec.regex)) for p in default_patterns().patterns]
    for text in texts:
        nt = normalize(text)
        views = {"folded": nt.folded.replace("*", ""), "clean": nt.clean, "original": text}
        for p, required in patterns:
            if required is None:
                continue
            for m in p.regex.finditer(views[p.spec.view]):
                assert any(lit in m.group() for lit in required), (p.spec.id, m.group())


def test_every_match_contains_a_required_literal() -> None:
    _assert_matches_hold_a_required_literal(_corpus_texts()[::3])


def test_required_literals_reads_the_regex() -> None:
    assert required_literals("谁(?:输|错)谁(?:是狗|吃屎)") == frozenset({"是狗", "吃屎"})
    assert required_literals("(?:我)?揭秘") == frozenset({"揭秘"})
    assert required_literals("(?:x)+y?") == frozenset({"x"})
    assert required_literals("(?:x)*") is None
    assert required_literals("a|b?") is None
    assert required_literals("(?=ab)c") == frozenset({"c"})
    assert required_literals("(?<=ab)") is None


def test_prefilter_is_exact_for_character_set_patterns() -> None:
    # patterns whose required literal is a set of characters ([!！]{4,}, 我|俺 compiled to [我俺])
    matcher = default_patterns()
    texts = [
        "！！！！",
        "!!!!到底是谁",
        "???？？",
        "啊啊啊啊啊",
        "烦烦烦烦",
        "我今年18岁了，老了熬不动",
        "俺都三十了",
        "没有感叹号的普通发言",
    ]
    for text in texts:
        nt = normalize(text)
        assert matcher.candidates(nt) == matcher.candidates(nt, prefilter=False), text
    assert sorted(required_literals("[!！]{4,}|[?？]{5,}") or ()) == ["!", "?", "！", "？"]
