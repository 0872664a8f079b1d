"""Dialect and English rows (``lexicons/terms/dialect.tsv``, ``english.tsv``; issue 11, item 4).

Each case is found through its data file: with the file left out of the matcher the same post has
no finding of that category. Near misses (longer English words, game talk) stay clean.
"""

from __future__ import annotations

from functools import cache

import pytest

from lexicons.loader import load_allow, load_game_vocab, load_terms
from moderation.lexicon import LexiconMatcher
from moderation.normalize import normalize


@cache
def _matcher(leave_out: str) -> LexiconMatcher:
    terms = [e for e in load_terms() if not (leave_out and e.source.startswith(leave_out))]
    return LexiconMatcher(terms, load_allow(), [w for w, _, _ in load_game_vocab()])


def _categories(text: str, leave_out: str = "") -> set[str]:
    return {c.category for c in _matcher(leave_out).candidates(normalize(text))}


FOUND = [
    # 闽南: insults on kin and wits
    ("干恁娘，又是我被推", "insult", "terms/dialect.tsv"),
    ("你头壳坏掉喔，这样也跳", "insult", "terms/dialect.tsv"),
    # 粤语: a self-curse, work life (M08)
    ("我讲大话就死俾你睇", "oath", "terms/dialect.tsv"),
    ("听日要返工，晏啲先上嚟", "real_life", "terms/dialect.tsv"),
    # 川渝
    ("你这个哈戳戳的，票都投反了", "insult", "terms/dialect.tsv"),
    # 吴语 (stop 24): the Shanghainese swear and quitting in anger
    ("册那，又被刀了", "insult", "terms/dialect.tsv"),
    ("侬个瘪三，这也跟票", "insult", "terms/dialect.tsv"),
    ("气煞我了，勿要白相了", "emotional", "terms/dialect.tsv"),
    # English (stop 24): the account behind a character, surrender as an oath (M08)
    ("Pretty sure the guy behind 迅雷 always grabs wolf", "vest", "terms/english.tsv"),
    ("If 凛 is village, I'll surrender right here.", "oath", "terms/english.tsv"),
    # English: a bare alt or sub in a game thread
    ("I think 7号 is someone's alt", "vest", "terms/english.tsv"),
    ("who is the sub for 9号 tomorrow?", "vest", "terms/english.tsv"),
    ("last season you did the same fake claim", "vest", "terms/english.tsv"),
    # English insults, oaths, mood, rulings, real life, blame, logs and vest talk (stop 22)
    ("bro u r trash, just stop claiming", "insult", "terms/english.tsv"),
    ("5号 you're the dumbest wolf I've met", "insult", "terms/english.tsv"),
    ("are you braindead? 3号 was checked", "insult", "terms/english.tsv"),
    ("if I'm lying may I get hit by a bus", "oath", "terms/english.tsv"),
    ("I swear on my mom's honor I'm the guard", "oath", "terms/english.tsv"),
    ("so done with this, vote me out whatever", "emotional", "terms/english.tsv"),
    ("fuck it, 随便你们投", "emotional", "terms/english.tsv"),
    ("the ruling is unfair and I'm not accepting that card", "director", "terms/english.tsv"),
    ("the GM told me my shield worked", "director", "terms/english.tsv"),
    ("my gf is mad at me so short post today", "real_life", "terms/english.tsv"),
    ("stuck at the airport, will vote later", "real_life", "terms/english.tsv"),
    ("this loss is on our witch, she wasted the poison", "meta", "terms/english.tsv"),
    ("here's the chat log from the wolf group", "evidence", "terms/english.tsv"),
    ("I'm the sub for 9号 from today", "vest", "terms/english.tsv"),
    ("qq jl 我贴出来了，自己看", "evidence", "terms/english.tsv"),
    ("今天OT到半夜，票明天补", "real_life", "terms/english.tsv"),
    ("我要是骗你们就遭天收", "oath", "terms/dialect.tsv"),
    ("今日又俾老细闹咗成日，迟啲先投", "real_life", "terms/dialect.tsv"),
    # a one-character insult spelled in pinyin reaches a row only as a phrase: 这头猪
    ("ni zhe tou zhu, 金水都发错", "insult", "terms/insult.tsv"),
]


@pytest.mark.parametrize(("text", "category", "source"), FOUND)
def test_found_through_its_data_row(text: str, category: str, source: str) -> None:
    assert category in _categories(text), text
    assert category not in _categories(text, leave_out=source), text


@pytest.mark.parametrize(
    "text",
    [
        "the subtitle of this thread is wrong",  # sub inside a longer word
        "an alternative plan: vote 5号",  # alt inside a longer word
        "返回楼上看一下票型",  # 返 without 工
        "这本册那天借给你了",  # 册 and 那 of two words
        "who's behind on the vote count? I have 3 for 5号",  # behind without the guy
        "头壳清醒的人都看得出5号是狼",  # 头壳 without 坏
        # English game talk: a fake claim, a poison, a done analysis, a play called dumb
        "5号 is a fake claim, the real seer is 2号",  # fake: no 法克 (letter_words.txt)
        "I made a mistake yesterday, vote 7号 today",  # made: no 妈的
        "witch should poison 4号, wolf kill was 6号",
        "I'm done with my analysis, vote 3号",
        "that was a dumb vote tbh",
        "nice clown play, gg",
        "I give up trying to read 7号, he is a null",
        "my read on 9号: wolf, fake seer claim",  # on 9号 is a seat, not the insult on9
    ],
)
def test_near_misses_stay_clean(text: str) -> None:
    assert _categories(text) == set(), text


def test_a_key_ending_in_a_seat_number_is_no_word() -> None:
    # on9 (粤语 戆居) stays an insult typed as a word, also after a seat (5号on9)
    assert "insult" in _categories("你个on9，又投错")
    assert "insult" in _categories("5号on9")
    assert _categories("all eyes on 9号 tonight") == set()
