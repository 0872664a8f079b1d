"""parse_vote: every vote-post format of the three seeds, and every way a post is not a vote."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_rules.errors import GameRuleError
from game_rules.votes import (
    AmbiguousVoteError,
    InvalidVoteError,
    ParsedVote,
    UnknownCandidateError,
    VoteError,
    fold_name,
    parse_vote,
)

CANDS = {"饺子": ["JZ", "饺饺"], "包子": ["BZ"], "Alice": ["小爱"], "面条": ["小爱"]}


def rule_of(text: str) -> str:
    with pytest.raises(InvalidVoteError) as info:
        parse_vote(text, CANDS)
    return info.value.rule


# --- the seeds' formats ---------------------------------------------------------------------


def test_seed_vote_format_two_lines() -> None:
    assert parse_vote("投票对象：饺子\n\n投票理由：饺子好吃", CANDS) == ParsedVote(
        "饺子", "饺子好吃", False, "饺子"
    )


def test_seed_change_format() -> None:
    vote = parse_vote("改票对象：包子\n改票理由：包子也好吃", CANDS)
    assert (vote.target, vote.reason, vote.is_change) == ("包子", "包子也好吃", True)


def test_seed_abstention_format() -> None:
    vote = parse_vote("投票对象：弃权\n投票理由：搞不清楚", CANDS)
    assert vote.target is None and vote.reason == "搞不清楚" and not vote.is_change


def test_abstention_as_change() -> None:
    vote = parse_vote("改票对象：弃权 改票理由：再想想", CANDS)
    assert vote.target is None and vote.is_change


def test_m72_object_and_reason_on_one_line() -> None:
    # M72: 投票对象与投票理由之间可以不换行
    assert parse_vote("投票对象：饺子投票理由：饺子好吃", CANDS).target == "饺子"
    assert parse_vote("投票对象：饺子 投票理由：饺子好吃", CANDS).reason == "饺子好吃"


def test_half_width_colon() -> None:
    assert parse_vote("投票对象:饺子\n投票理由:好吃", CANDS).target == "饺子"


def test_mixed_width_colons_and_spaces() -> None:
    vote = parse_vote("投票对象 ： 饺子\n投票理由:  好吃  ", CANDS)
    assert (vote.target, vote.reason) == ("饺子", "好吃")


def test_spaces_inside_label() -> None:
    assert parse_vote("投 票 对 象：饺子\n投票 理由：好吃", CANDS).target == "饺子"


def test_full_width_letters_in_name() -> None:
    assert parse_vote("投票对象：ＡＬＩＣＥ\n投票理由：x", CANDS).target == "Alice"


def test_case_insensitive_alias() -> None:
    assert parse_vote("投票对象：jz\n投票理由：x", CANDS).target == "饺子"


def test_full_width_alias() -> None:
    assert parse_vote("投票对象：ｂｚ\n投票理由：x", CANDS).target == "包子"


def test_reason_before_object() -> None:
    vote = parse_vote("投票理由：好吃\n投票对象：饺子", CANDS)
    assert (vote.target, vote.reason) == ("饺子", "好吃")


def test_multiline_reason_kept_whole() -> None:
    vote = parse_vote("投票对象：饺子\n投票理由：第一行\n第二行", CANDS)
    assert vote.reason == "第一行\n第二行"


def test_reason_keeps_original_width() -> None:
    assert parse_vote("投票对象：饺子\n投票理由：ＡＢＣ，好吃！", CANDS).reason == "ＡＢＣ，好吃！"


def test_chatter_before_vote_is_ignored() -> None:
    assert parse_vote("想了很久。\n投票对象：饺子\n投票理由：好吃", CANDS).target == "饺子"


def test_wrapped_and_punctuated_name() -> None:
    assert parse_vote("投票对象：「饺子」。\n投票理由：x", CANDS).target == "饺子"
    assert parse_vote("投票对象：【包子】\n投票理由：x", CANDS).target == "包子"
    assert parse_vote("投票对象：@饺子\n投票理由：x", CANDS).target == "饺子"


def test_bbcode_formatting_dropped() -> None:
    text = "[b]投票对象：[color=Red]饺子[/color][/b]\n[size=4]投票理由：好吃[/size]"
    assert parse_vote(text, CANDS) == ParsedVote("饺子", "好吃", False, "饺子")


def test_html_breaks_are_newlines() -> None:
    assert parse_vote("投票对象：饺子<br />投票理由：好吃", CANDS).target == "饺子"


def test_traditional_label_and_typo_label() -> None:
    assert parse_vote("投票對象：饺子\n投票理由：x", CANDS).target == "饺子"
    assert parse_vote("投票对像：饺子\n投票理由：x", CANDS).target == "饺子"


def test_zero_width_characters_ignored() -> None:
    assert parse_vote("投票对象：饺\u200b子\n投票理由：x", CANDS).target == "饺子"


def test_crlf_line_endings() -> None:
    assert parse_vote("投票对象：饺子\r\n投票理由：好吃\r\n", CANDS).reason == "好吃"


# --- quoted text is not the vote ------------------------------------------------------------


def test_quoted_original_vote_ignored_in_change() -> None:
    text = "[quote]投票对象：饺子\n投票理由：好吃[/quote]\n改票对象：包子\n改票理由：也好吃"
    vote = parse_vote(text, CANDS)
    assert (vote.target, vote.is_change) == ("包子", True)


def test_discuz_quote_with_author_header_ignored() -> None:
    text = (
        "[quote][size=2][color=#999999]某某 发表于 2016-3-1 20:00[/color][/size]\n"
        "投票对象：饺子 投票理由：好吃[/quote]改票对象：包子 改票理由：变了"
    )
    assert parse_vote(text, CANDS).target == "包子"


def test_nested_quotes_ignored() -> None:
    text = "[quote]a[quote]投票对象：饺子 投票理由：x[/quote]b[/quote]投票对象：包子 投票理由：y"
    assert parse_vote(text, CANDS).target == "包子"


def test_quote_tag_case_and_parameter() -> None:
    text = "[QUOTE=某某]投票对象：饺子 投票理由：x[/Quote]投票对象：包子 投票理由：y"
    assert parse_vote(text, CANDS).target == "包子"


def test_only_quoted_vote_is_no_vote() -> None:
    assert rule_of("[quote]投票对象：饺子\n投票理由：好吃[/quote]\n同意楼上") == "no_vote_format"


def test_angle_bracket_quoted_lines_ignored() -> None:
    text = "> 投票对象：饺子\n> 投票理由：好吃\n改票对象：包子\n改票理由：y"
    assert parse_vote(text, CANDS).target == "包子"


def test_unclosed_quote_is_invalid_not_guessed() -> None:
    assert rule_of("[quote]投票对象：饺子 投票理由：x\n投票对象：包子 投票理由：y") == (
        "quote_unclosed"
    )


def test_stray_closing_quote_dropped() -> None:
    assert parse_vote("[/quote]投票对象：饺子 投票理由：x", CANDS).target == "饺子"


# --- malformed votes: InvalidVoteError saying what is wrong -----------------------------------


def test_missing_reason() -> None:
    assert rule_of("投票对象：饺子") == "missing_reason"


def test_missing_object() -> None:
    assert rule_of("投票理由：好吃") == "missing_object"


def test_two_objects() -> None:
    assert rule_of("投票对象：饺子\n投票理由：x\n投票对象：包子") == "two_objects"


def test_two_reasons() -> None:
    assert rule_of("投票对象：饺子\n投票理由：x\n投票理由：y") == "two_reasons"


def test_mixed_vote_and_change_labels() -> None:
    assert rule_of("投票对象：饺子\n改票理由：x") == "mixed_labels"


def test_empty_object() -> None:
    assert rule_of("投票对象：\n投票理由：x") == "empty_target"


def test_object_on_next_line_is_empty_object() -> None:
    assert rule_of("投票对象：\n饺子\n投票理由：x") == "empty_target"


def test_empty_reason() -> None:
    assert rule_of("投票对象：饺子\n投票理由：   ") == "empty_reason"
    assert rule_of("投票对象：饺子 投票理由：。") == "empty_reason"


def test_missing_colon_is_named() -> None:
    assert rule_of("投票对象 饺子\n投票理由 好吃") == "missing_colon"


def test_bare_abstain_word_is_not_the_format() -> None:
    with pytest.raises(InvalidVoteError, match="弃权"):
        parse_vote("弃权", CANDS)


def test_no_format_at_all() -> None:
    assert rule_of("我觉得饺子是狼") == "no_vote_format"
    assert rule_of("") == "no_vote_format"


def test_error_messages_are_chinese_and_name_the_problem() -> None:
    with pytest.raises(InvalidVoteError, match="缺少“投票理由：”"):
        parse_vote("投票对象：饺子", CANDS)
    with pytest.raises(InvalidVoteError, match="改票理由"):
        parse_vote("改票对象：饺子", CANDS)


# --- matching names -----------------------------------------------------------------------------


def test_unknown_candidate() -> None:
    with pytest.raises(UnknownCandidateError) as info:
        parse_vote("投票对象：馒头\n投票理由：x", CANDS)
    assert info.value.written == "馒头" and info.value.rule == "unknown_target"


def test_unknown_candidate_is_an_invalid_vote() -> None:
    # M72: 投票格式或投票对象有误的票无效
    with pytest.raises(InvalidVoteError):
        parse_vote("投票对象：馒头\n投票理由：x", CANDS)


def test_no_prefix_guessing() -> None:
    with pytest.raises(UnknownCandidateError):
        parse_vote("投票对象：饺\n投票理由：x", CANDS)


def test_ambiguous_alias_lists_candidates() -> None:
    with pytest.raises(AmbiguousVoteError) as info:
        parse_vote("投票对象：小爱\n投票理由：x", CANDS)
    assert info.value.matches == ("Alice", "面条")
    assert "Alice" in str(info.value) and "面条" in str(info.value)


def test_canonical_name_beats_another_characters_alias() -> None:
    cands = {"饺子": [], "包子": ["饺子"]}
    assert parse_vote("投票对象：饺子\n投票理由：x", cands).target == "饺子"


def test_two_names_folding_alike_is_ambiguous_unless_exact() -> None:
    cands: dict[str, list[str]] = {"ABC": [], "abc": []}
    assert parse_vote("投票对象：abc\n投票理由：x", cands).target == "abc"
    with pytest.raises(AmbiguousVoteError):
        parse_vote("投票对象：Abc\n投票理由：x", cands)


def test_alias_given_as_a_bare_string() -> None:
    assert parse_vote("投票对象：dumpling\n投票理由：x", {"饺子": "dumpling"}).target == "饺子"


def test_dead_character_is_unknown() -> None:
    # candidates are the living characters only
    with pytest.raises(UnknownCandidateError):
        parse_vote("投票对象：包子\n投票理由：x", {"饺子": []})


def test_fold_name_width_and_case() -> None:
    assert fold_name("Ａ Ｂ c") == "abc"


def test_errors_are_game_rule_errors_and_value_errors() -> None:
    with pytest.raises(GameRuleError):
        parse_vote("x", CANDS)
    assert issubclass(InvalidVoteError, ValueError)


# --- property: never crashes --------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "投票对象", "改票对象", "投票理由", "改票理由", "：", ":", "弃权", "饺子", "包子", "JZ",
        "小爱", "\n", " ", "[quote]", "[/quote]", "[b]", "[/b]", ">", "投 票", "对象", "理由",
        "「", "」", "\u200b", "Ａ", "。",
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=20).map("".join))
def test_parse_vote_never_crashes_on_vote_like_text(text: str) -> None:
    try:
        vote = parse_vote(text, CANDS)
    except VoteError:
        return
    assert vote.target is None or vote.target in CANDS
    assert vote.reason.strip()


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=80),
    st.dictionaries(st.text(max_size=4), st.lists(st.text(max_size=4), max_size=2), max_size=4),
)
def test_parse_vote_never_crashes_on_arbitrary_input(text: str, cands: dict[str, Any]) -> None:
    try:
        vote = parse_vote(text, cands)
    except VoteError:
        return
    assert vote.target is None or vote.target in cands


def test_name_with_trailing_punctuation_matched_as_written() -> None:
    cands: dict[str, list[str]] = {"饺子!": [], "包子": []}
    assert parse_vote("投票对象：饺子!\n投票理由：x", cands).target == "饺子!"
