"""Importing saved pages: through the same ingest path as the API, idempotent by forum post id,
unknown accounts listed (never guessed) until the director maps them, all or nothing."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.intake import IntakeError, import_page, map_account
from forum.page import read_page
from tests.forum.conftest import M72_ROLES, fixture, players_with, stored_posts


def run_import(app: Flask, game: dict[str, Any], name: str, thread: str) -> Any:
    with app.app_context():
        return import_page(game["id"], read_page(fixture(name)), thread, caller=None, actor="t")


def test_import_adds_mapped_posts_and_lists_unknown_accounts(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    report = run_import(app, game, "tieba_vote_p1.html", "vote")
    added = [(r["forum_post_id"], r["author"]) for r in report.added]
    assert added == [
        ("140000002", "微信"), ("140000003", "支付宝"), ("140000004", "淘宝"),
        ("150000001", "淘宝"), ("150000002", "微信"), ("140000006", "抖音"),
    ]  # fmt: skip
    # the director's account and a 小号 play no character: listed, not guessed
    assert report.unmapped == {"版杀导演君": 1, "抖音小号233": 1}
    assert report.deleted_floors == (5,)
    votes = {r["forum_post_id"]: r["vote"] for r in report.added}
    assert votes["150000001"]["status"] == "counted" and votes["150000001"]["is_change"]
    assert votes["150000002"]["status"] == "invalid"  # a chat reply is no vote
    assert len(stored_posts(client, game)) == 6


def test_the_same_page_again_adds_nothing_and_the_next_page_adds_only_its_posts(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    run_import(app, game, "tieba_vote_p1.html", "vote")
    again = run_import(app, game, "tieba_vote_p1.html", "vote")
    assert again.added == [] and len(again.already) == 6
    following = run_import(app, game, "tieba_vote_p2.html", "vote")
    # weibo_2026 is 微博's account (given as its player at creation)
    assert [r["author"] for r in following.added] == ["微博", "知乎", "百度"]
    assert len(stored_posts(client, game)) == 9


def test_mapping_an_account_then_reimporting_adds_its_posts(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    run_import(app, game, "tieba_discussion.html", "discussion")
    with app.app_context():
        map_account(game["id"], "版杀导演君", "哔哩哔哩", actor="t")
        with pytest.raises(IntakeError, match="已经对应角色"):
            map_account(game["id"], "版杀导演君", "微信", actor="t")
    report = run_import(app, game, "tieba_discussion.html", "discussion")
    assert [r["account"] for r in report.added] == ["版杀导演君"]
    assert len(report.already) == 3 and report.unmapped == {}


def test_screening_findings_and_suggestions_as_for_api_posts(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    report = run_import(app, game, "tieba_discussion.html", "discussion")
    insult = next(r for r in report.added if r["author"] == "高德")
    assert insult["findings"] and insult["suggestion"] is not None
    response = client.get(
        f"/api/games/{game['id']}/suggestions",
        headers={"Authorization": f"Bearer {game['director_token']}"},
    )
    assert [s["character"] for s in response.get_json()["suggestions"]] == ["高德"]
    calm = next(r for r in report.added if r["author"] == "美团")
    assert calm["suggestion"] is None


def test_a_refused_post_leaves_the_whole_page_unimported(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    app.config["MAX_POST_CHARS"] = 50  # floor 2 fits, floor 3 (a quote and a reply) does not
    with pytest.raises(IntakeError, match="超过上限"):
        run_import(app, game, "discuz_discussion_p1.html", "discussion")
    assert stored_posts(client, game) == []


def tally(app: Flask, game_id: str) -> tuple[dict[str, Any], str]:
    from api.locking import read_game

    with app.app_context(), read_game(game_id) as (_s, _row, g):
        t = g.ruleset.tally_today(g.state)
        return {k: v for k, v in t.counts.items() if v}, t.announcement()


def test_an_m72_day_imported_from_pages_tallies_as_the_same_votes_through_the_api(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    run_import(app, game, "tieba_vote_p1.html", "vote")
    run_import(app, game, "tieba_vote_p2.html", "vote")
    body = {"ruleset": "m72", "players": players_with({"微博": "weibo_2026"}),
            "roles": M72_ROLES, "seed": "forum"}  # fmt: skip
    twin = client.post("/api/games", json=body).get_json()
    by_hand = [
        ("140000002", "微信", "投票对象：支付宝\n投票理由：发言一直在划水", None),
        ("140000003", "支付宝", "投票对象：微信\n投票理由：踩我的都是狼", None),
        ("140000004", "淘宝", "投票对象：支付宝\n投票理由：跟票", None),
        ("150000001", "淘宝", "改票对象：微信\n改票理由：听了二楼的分析改主意了", "140000004"),
        ("140000006", "抖音", "投票对象：支付宝\n投票理由：状态不对", None),
        ("140000008", "微博", "投票对象：微信\n投票理由：昨天发言太强势", None),
        ("140000009", "知乎", "投票对象：弃权\n投票理由：信息不够", None),
        ("140000010", "百度", "投票对象：支付宝\n投票理由：站边二楼", None),
    ]
    for forum_id, author, text, reply_to in by_hand:
        post = {"forum_post_id": forum_id, "author": author, "thread": "vote", "day": 1,
                "body": text, "posted_at": "2026-11-29T20:00:00+08:00"}  # fmt: skip
        if reply_to:
            post["reply_to"] = reply_to
        response = client.post(
            f"/api/games/{twin['id']}/posts", json=post,
            headers={"Authorization": f"Bearer {twin['director_token']}"},
        )  # fmt: skip
        assert response.status_code == 200
    imported, announced = tally(app, game["id"])
    assert imported == {"支付宝": 3, "微信": 3}
    assert (imported, announced) == tally(app, twin["id"])


def test_an_account_naming_two_characters_is_listed_never_guessed(
    app: Flask, client: FlaskClient
) -> None:
    players = [{"character": n, "aliases": ["高德"]} if n == "滴滴" else n
               for n in players_with()]  # fmt: skip
    body = {"ruleset": "m72", "players": players, "roles": M72_ROLES, "seed": "forum"}
    game = client.post("/api/games", json=body).get_json()
    report = run_import(app, game, "tieba_discussion.html", "discussion")
    assert "高德" in report.unmapped and report.ambiguous == {"高德"}
    assert "高德" not in {p["author"] for p in stored_posts(client, game)}
