"""Every way a body can miss its schema is told in Chinese, at the offending field's path.

pydantic words its errors in English and locates them as tuples; :mod:`api.schema` turns the
first one into the service's ``path`` and message. Each row is one defect in an otherwise valid
body.
"""

from __future__ import annotations

from typing import Any

import pytest

from api import schemas
from api.schema import Schema, SchemaError

T = "2024-05-01T20:00:00+08:00"
POST = {
    "forum_post_id": "1",
    "author": "甲",
    "thread": "vote",
    "day": 1,
    "body": "x",
    "posted_at": T,
}
GAME = {"ruleset": "m72", "players": ["甲"]}
CARD = {"character": "甲", "colour": "red", "category": "other", "reason": "x"}

CASES: list[tuple[Schema, Any, str, str]] = [
    (schemas.CREATE_GAME, None, "$", "不能为 null"),
    (schemas.CREATE_GAME, [], "$", "应为对象，实际为 array"),
    (schemas.CREATE_GAME, {"players": ["甲"]}, "$.ruleset", "缺少必填字段"),
    (schemas.CREATE_GAME, {**GAME, "sede": "x"}, "$.sede", "未知字段"),
    (schemas.CREATE_GAME, {**GAME, "ruleset": 8}, "$.ruleset", "应为字符串，实际为 number"),
    (
        schemas.CREATE_GAME,
        {**GAME, "ruleset": "m99"},
        "$.ruleset",
        "不能是「m99」，只能是以下之一：m08, m08_12, m72, wa004, wa004_consent",
    ),
    (schemas.CREATE_GAME, {**GAME, "players": []}, "$.players", "至少1项"),
    (schemas.CREATE_GAME, {**GAME, "players": ["甲"] * 65}, "$.players", "最多64项"),
    (schemas.CREATE_GAME, {**GAME, "players": ["甲" * 65]}, "$.players[0]", "最多64个字符"),
    (schemas.CREATE_GAME, {**GAME, "players": [" 甲"]}, "$.players[0]", "角色名首尾不能有空格"),
    (
        schemas.CREATE_GAME,
        {**GAME, "players": [7]},
        "$.players[0]",
        "应为字符串或对象，实际为 number",
    ),
    (
        schemas.CREATE_GAME,
        {**GAME, "players": [{"player": "乙"}]},
        "$.players[0].character",
        "缺少必填字段",
    ),
    (schemas.CREATE_GAME, {**GAME, "seed": ""}, "$.seed", "至少1个字符"),
    (schemas.CREATE_GAME, {**GAME, "seed": "a\x00"}, "$.seed", "不能包含 NUL 字符"),
    (schemas.CREATE_GAME, {**GAME, "seed": "a\ud800"}, "$.seed", "第1个字符是不成对的代理码位"),
    (
        schemas.CREATE_GAME,
        {**GAME, "roles": {"甲\x00": "wolf"}},
        "$.roles",
        "字段名：不能包含 NUL 字符",
    ),
    (schemas.CREATE_GAME, {**GAME, "x\ud800": 1}, "$", "字段名：第1个字符是不成对的代理码位"),
    (schemas.CREATE_GAME, {**GAME, "roles": []}, "$.roles", "应为对象，实际为 array"),
    (
        schemas.CREATE_GAME,
        {**GAME, "ban_overrides": [{"ban": 0, "reason": "x"}]},
        "$.ban_overrides[0].ban",
        "不能小于1",
    ),
    (
        schemas.CREATE_GAME,
        {**GAME, "ban_overrides": [{"ban": True, "reason": "x"}]},
        "$.ban_overrides[0].ban",
        "应为整数，实际为 boolean",
    ),
    (schemas.POSTS_REQUEST, {**POST, "day": 1001}, "$.day", "不能大于1000"),
    (schemas.POSTS_REQUEST, {**POST, "day": 1.5}, "$.day", "应为整数，实际为 number"),
    (
        schemas.POSTS_REQUEST,
        {"posts": [POST, {**POST, "author": 5}]},
        "$.posts[1].author",
        "应为字符串，实际为 number",
    ),
    (schemas.POSTS_REQUEST, 5, "$", "应为对象，实际为 number"),
    (
        schemas.POSTS_REQUEST,
        {**POST, "posted_at": 5},
        "$.posted_at",
        "应为 ISO 8601 时间字符串，实际为 number",
    ),
    (
        schemas.POSTS_REQUEST,
        {**POST, "posted_at": "昨天"},
        "$.posted_at",
        "不是 ISO 8601 时间：'昨天'",
    ),
    (
        schemas.POSTS_REQUEST,
        {**POST, "posted_at": "2024-05-01T20:00:00"},
        "$.posted_at",
        "时间须带时区（如 +08:00 或 Z）",
    ),
    (
        schemas.POSTS_REQUEST,
        {**POST, "posted_at": "1969-05-01T20:00:00Z"},
        "$.posted_at",
        "时间须在 1970-01-01 至 9998-12-31（UTC）之间",
    ),
    (
        schemas.ACTION,
        {"type": "dance"},
        "$.type",
        "只能是以下之一：skill, vote, proxy_vote, schedule_day, last_words, deadline_passed, "
        "withdraw_skill, substitute, declare_faction_lost",
    ),
    (
        schemas.ACTION,
        {"type": ["vote"]},
        "$.type",
        "只能是以下之一：skill, vote, proxy_vote, "
        "schedule_day, last_words, deadline_passed, withdraw_skill, substitute, "
        "declare_faction_lost",
    ),
    (schemas.ACTION, [], "$", "应为对象，实际为 array"),
    (schemas.ACTION, {"type": "vote", "voter": "甲"}, "$.target", "缺少必填字段"),
    (
        schemas.ACTION,
        {"type": "skill", "actor": "甲", "skill": "divine", "target": 5},
        "$.target",
        "应为字符串，实际为 number",
    ),
    (schemas.ADVANCE, {"close": "week"}, "$.close", "只能是以下之一：day, night"),
    (schemas.ADVANCE, {"close": "night", "at": T}, "$.at", "未知字段"),
    (
        schemas.MANUAL_CARD,
        {**CARD, "colour": "green"},
        "$.colour",
        "不能是「green」，只能是以下之一：blue, yellow, red",
    ),
    (
        schemas.MANUAL_CARD,
        {**CARD, "faction_lost": "yes"},
        "$.faction_lost",
        "应为布尔值，实际为 string",
    ),
    (
        schemas.DECISION_REQUEST,
        {"action": "confirm", "note": "x" * 2001},
        "$.note",
        "最多2000个字符",
    ),
    # the first defect is the structural one: text inside a value of the wrong type, or under a
    # field the schema does not know, is not looked at (the fuzz test found both)
    (schemas.CREATE_GAME, {**GAME, "": ["\x00"]}, "$.", "未知字段"),
    (schemas.MANUAL_CARD, {**CARD, "day": [1, {"k\x00": 1}]}, "$.day", "应为整数，实际为 array"),
    (schemas.MANUAL_CARD, {**CARD, "day": "\x00"}, "$.day", "应为整数，实际为 string"),
    (schemas.MANUAL_CARD, {**CARD, "colour": "red\x00"}, "$.colour", "不能包含 NUL 字符"),
    (
        schemas.MANUAL_CARD,
        {**CARD, "colour": "red\ud800"},
        "$.colour",
        "第3个字符是不成对的代理码位",
    ),
    (
        schemas.ACTION,
        {"type": "vote", "voter": "甲", "target": "乙\ud800"},
        "$.target",
        "第1个字符是不成对的代理码位",
    ),
    (
        schemas.ACTION,
        {"type": "skill", "actor": "甲", "skill": "x", "k\ud800": 1},
        "$",
        "字段名：第1个字符是不成对的代理码位",
    ),
]


@pytest.mark.parametrize(("schema", "body", "path", "message"), CASES)
def test_a_defect_is_told_in_chinese_at_its_path(
    schema: Schema, body: Any, path: str, message: str
) -> None:
    with pytest.raises(SchemaError) as refused:
        schema.validate(body)
    assert (refused.value.path, refused.value.message) == (path, message)


def test_a_valid_body_comes_back_as_the_dict_the_view_reads() -> None:
    valid = schemas.POSTS_REQUEST.validate({**POST, "day": 2.0})
    assert valid["day"] == 2 and type(valid["day"]) is int
    assert valid["posted_at"].isoformat() == T
    assert "reply_to" not in valid  # only the keys the client sent
    players = schemas.CREATE_GAME.validate({**GAME, "players": ["甲", {"character": "乙"}]})
    assert players["players"] == ["甲", {"character": "乙"}]


def test_a_path_below_a_batch_item_keeps_the_callers_prefix() -> None:
    with pytest.raises(SchemaError) as refused:
        schemas.POST.validate({**POST, "day": -1}, "$[3]")
    assert refused.value.path == "$[3].day" and refused.value.message == "不能小于0"
