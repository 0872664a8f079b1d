"""Emoji standing for a word: CLDR Chinese names that are nouns (🏥 医院) and the hand rows of
``lexicons/emoji.tsv`` (💀 死, ⚡ 雷, 🔪 刀).

Each violation is missed with ``normalize.EMOJI_WORDS`` off; the clean posts use the game's own
emoji (🔪 the wolves' kill, 🧪 the witch's poison, 🔮 the seer's check) or talk about an emoji,
and stay clean with it on.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from moderation import normalize as norm
from moderation.glyphs import emoji_words
from moderation.screen import Screener

VIOLATIONS = [
    ("oath", "我没说谎，不然全家💀光"),  # 💀 skull: 死
    ("oath", "谁骗人谁出门被⚡劈"),  # ⚡ high voltage: 雷
    ("oath", "✝️在上，我昨晚真的验了他"),  # ✝ the cross: 上帝
    ("oath", "我要是狼，出门被🚗撞"),  # 🚗 汽车, read as 车 for the oath
    ("real_life", "刚从🏥出来，挂了一下午水"),  # 🏥 医院, a generated noun
    ("evidence", "📸在这，她昨晚私聊我说的"),  # 📸 a screenshot
    ("insult", "你个🤡天天悍跳"),  # 🤡 a face, read as 小丑 by hand
    ("insult", "发言跟💩一样，看不下去"),  # 💩 屎
    ("insult", "你是🐵子请来的救兵吧"),  # 🐵 a face, read as 猴 by hand
]

CLEAN = [
    "今晚🔪5号，🧪留着给明天",
    "🔮了3号，金水，明天接着验",
    "🛡昨晚给了自己，今天换人",
    "🤡这个表情包是谁做的，好可爱",
    "好人赢了🏆",
    "刚吃完🍔，上来补个票：投7号",
]


@pytest.fixture
def words_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def clear() -> None:
        for table in (norm._FOLD, norm._FOLD_LEN, norm._CLEAN, norm._CLEAN_LEN):
            table.clear()
        norm.fold_char.cache_clear()
        norm._emoji.cache_clear()

    clear()
    monkeypatch.setattr(norm, "EMOJI_WORDS", False)
    yield
    monkeypatch.undo()
    clear()


def _categories(screeners: dict[str, Screener], text: str) -> set[str]:
    return {f.category for r in ("m08", "m72") for f in screeners[r].screen(text)}


@pytest.mark.parametrize(("category", "text"), VIOLATIONS)
def test_emoji_word_found(screeners: dict[str, Screener], category: str, text: str) -> None:
    assert category in _categories(screeners, text), text


@pytest.mark.parametrize(("category", "text"), VIOLATIONS)
def test_emoji_word_missed_without_the_table(
    words_off: None, screeners: dict[str, Screener], category: str, text: str
) -> None:
    assert category not in _categories(screeners, text), text


@pytest.mark.parametrize("text", CLEAN)
def test_game_emoji_and_mentions_stay_clean(screeners: dict[str, Screener], text: str) -> None:
    assert not _categories(screeners, text), text


def test_generated_nouns_leave_faces_and_gestures_out() -> None:
    words = emoji_words()
    assert words["🏥"] == "医院" and words["⚰"] == "棺材"
    assert not {"😠", "🤥", "👏", "🙏", "💔"} & set(words)


def test_game_emoji_read_as_the_game_word() -> None:
    assert norm.normalize("🔪3号").folded == "刀3号"
    assert norm.normalize("🧪了他").folded == "毒了他"
    assert norm.normalize("我吹🎺").folded == "我吹"  # 小号 (trumpet) would read as an alt
