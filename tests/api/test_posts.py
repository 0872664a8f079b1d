"""Post ingestion: screening, suggestions, idempotency, water, 诈尸, votes, limits."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from api import create_app
from api.screening import screener
from models.labelled import load_labelled_examples
from models.posts import Post


def posts_count(app: Flask) -> int:
    with app.extensions["bansha_db"].read() as session:
        return int(session.scalar(select(func.count()).select_from(Post)) or 0)


def test_clean_game_talk_has_no_findings(api: Any, game: dict[str, Any]) -> None:
    result = api.post(game, "软件11", "昨晚被刀的是软件3，今天查杀软件2，金水是软件7")
    assert result["findings"] == [] and result["suggestion"] is None
    assert result["counts_activity"] is True and result["water"] is False
    assert result["duplicate"] is False and result["zombie"] is False


def test_offending_post_gets_findings_and_a_suggested_card(api: Any, game: dict[str, Any]) -> None:
    body = "[b]你个ＳＢ[/b]，拿人格担保我是好人"
    result = api.post(game, "软件11", body)
    categories = {f["category"] for f in result["findings"]}
    assert {"insult", "oath"} <= categories
    for f in result["findings"]:
        assert body[f["start"] : f["end"]] == f["match"]  # offsets index the raw body
        assert f["article"]["ruleset"] == "m72" and f["article"]["text"]
    suggestion = result["suggestion"]
    assert suggestion["colour"] == "blue" and suggestion["status"] == "pending"
    assert suggestion["kind"] == "post" and suggestion["character"] == "软件11"
    texts = " ".join(r["text"] for r in suggestion["reasons"])
    assert "ＳＢ" in texts and "判罚依据" in texts and "此前没有同类违规" in texts
    queue = api.pending(game)
    assert [s["id"] for s in queue] == [suggestion["id"]]
    assert queue[0]["post"]["body"] == body


def test_suggestion_cites_the_clause_of_its_finding(api: Any, game: dict[str, Any]) -> None:
    # M72 2(8): citing another player's oath; the card line must not fall back to 2(5)
    result = api.post(game, "软件11", "他都赌咒发誓了，我信他是好人")
    codes = {f["article"]["code"] for f in result["findings"]}
    assert codes == {"2(8)"}
    card_line = result["suggestion"]["reasons"][-1]
    assert card_line["article"]["code"] == "2(8)"
    assert "以“贴脸”作为讨论依据" in card_line["article"]["text"]
    # an own oath keeps its clause
    own = api.post(game, "软件12", "我拿人格担保我是好人")
    assert own["suggestion"]["reasons"][-1]["article"]["code"] == "2(6)"


def test_same_kind_after_a_blue_suggests_yellow(api: Any, game: dict[str, Any]) -> None:
    first = api.post(game, "软件11", "我拿人格担保我是好人")
    api.decide(game, first["suggestion"]["id"], "confirm")
    second = api.post(game, "软件11", "我再拿人格担保一次")
    assert second["suggestion"]["colour"] == "yellow"
    assert any("蓝牌1张" in r["text"] for r in second["suggestion"]["reasons"])
    # another player is still on a first offence
    other = api.post(game, "软件12", "我拿人格担保我是好人")
    assert other["suggestion"]["colour"] == "blue"


def test_a_retried_post_is_stored_once(api: Any, game: dict[str, Any], app: Flask) -> None:
    first = api.post(game, "软件11", "你个ＳＢ", forum_post_id="forum-42")
    again = api.post(game, "软件11", "你个ＳＢ", forum_post_id="forum-42")
    assert again["duplicate"] is True and again["post_id"] == first["post_id"]
    assert again["suggestion"]["id"] == first["suggestion"]["id"]
    assert posts_count(app) == 1 and len(api.pending(game)) == 1


def test_batch_with_duplicates_inside_and_across(
    api: Any, game: dict[str, Any], app: Flask
) -> None:
    posts = [api.post_body("软件1", f"第{i}帖分析", forum_post_id=f"b{i}") for i in range(5)]
    posts.append(api.post_body("软件1", "第0帖分析", forum_post_id="b0"))
    response = api.call(
        "POST", f"/api/games/{game['id']}/posts", game["director_token"], {"posts": posts}
    )
    assert response.status_code == 200
    results = response.get_json()["results"]
    assert [r["duplicate"] for r in results] == [False] * 5 + [True]
    assert results[5]["post_id"] == results[0]["post_id"]
    response = api.call(
        "POST", f"/api/games/{game['id']}/posts", game["director_token"], {"posts": posts[:2]}
    )
    assert [r["duplicate"] for r in response.get_json()["results"]] == [True, True]
    assert posts_count(app) == 5


def test_water_posts_do_not_count_towards_activity(api: Any, game: dict[str, Any]) -> None:
    for _ in range(5):
        result = api.post(game, "软件1", "顶")
        assert result["water"] is True and result["counts_activity"] is False
    for _ in range(5):
        assert api.post(game, "软件2", "我觉得软件5的发言有问题")["counts_activity"] is True
    closed = api.ok(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"}
    )
    lurking = {c["character"] for c in closed["cards"] if c["category"] == "lurking"}
    assert "软件1" in lurking and "软件2" not in lurking


def test_posts_by_eliminated_characters_are_zombie(api: Any, game: dict[str, Any]) -> None:
    api.ok(
        "POST",
        f"/api/games/{game['id']}/cards",
        game["director_token"],
        {"character": "软件12", "colour": "red", "category": "other", "reason": "退出游戏"},
    )
    api.ok("POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"})
    result = api.post(game, "软件12", "我还想说两句", day=1)
    assert result["zombie"] is True and result["counts_activity"] is False
    suggestion = result["suggestion"]
    assert suggestion["kind"] == "zombie" and suggestion["category"] == "zombie"
    assert any("诈尸" in r["text"] for r in suggestion["reasons"])
    # M72 6(2) covers 讨论帖、投票帖、进程帖 — not the rules thread
    quiet = api.post(game, "软件12", "请问规则", thread="rules")
    assert quiet["zombie"] is False and quiet["suggestion"] is None


def test_vote_posts_are_parsed_and_cast(api: Any, game: dict[str, Any]) -> None:
    ok = api.post(game, "软件1", "投票对象：软件12\n投票理由：发言划水", thread="vote")
    assert ok["vote"]["status"] == "counted" and ok["vote"]["target"] == "软件12"
    abstain = api.post(game, "软件2", "投票对象：弃权 投票理由：搞不清楚", thread="vote")
    assert abstain["vote"]["status"] == "counted" and abstain["vote"]["abstain"] is True
    bad = api.post(game, "软件3", "我投软件12", thread="vote")
    assert bad["vote"]["status"] == "invalid" and bad["vote"]["rule"] == "no_vote_format"
    unknown = api.post(game, "软件4", "投票对象：路人甲\n投票理由：随便", thread="vote")
    assert unknown["vote"]["status"] == "invalid" and unknown["vote"]["rule"] == "unknown_target"
    late = api.post(game, "软件5", "投票对象：软件12\n投票理由：x", thread="vote", day=2)
    assert late["vote"]["status"] == "rejected" and late["vote"]["rule"] == "not_voting_day"
    talk = api.post(game, "软件6", "投票对象：软件12\n投票理由：x", thread="discussion")
    assert talk["vote"] is None
    closed = api.ok(
        "POST", f"/api/games/{game['id']}/advance", game["director_token"], {"close": "day"}
    )
    assert any("软件12获得1票" in a for a in closed["announcements"])
    no_vote = {c["character"] for c in closed["cards"] if c["category"] == "no_vote"}
    assert "软件1" not in no_vote and "软件2" not in no_vote  # 弃权 is a vote
    assert {"软件3", "软件4", "软件5"} <= no_vote  # invalid votes are 废票


def test_vote_aliases_and_changes(api: Any) -> None:
    players = [{"character": n, "aliases": [f"{n}号"]} for n in api.M72_PLAYERS]
    game = api.make_game(players=players)
    first = api.post(
        game, "软件1", "投票对象：软件12号\n投票理由：x", thread="vote", forum_post_id="v1"
    )
    assert first["vote"]["target"] == "软件12"
    change = api.post(game, "软件1", "改票对象：软件11\n改票理由：y", thread="vote", reply_to="v1")
    assert change["vote"]["status"] == "counted" and change["vote"]["is_change"] is True


def test_m08_allows_only_one_change(api: Any) -> None:
    game = api.make_game("m08")
    api.post(game, "花阳", "投票对象：妮可\n投票理由：x", thread="vote", forum_post_id="m1")
    second = api.post(game, "花阳", "改票对象：千歌\n改票理由：y", thread="vote", reply_to="m1")
    assert second["vote"]["status"] == "counted"
    third = api.post(game, "花阳", "改票对象：梨子\n改票理由：z", thread="vote", reply_to="m1")
    assert third["vote"]["status"] == "rejected" and third["vote"]["rule"] == "change_limit"


def test_unknown_author_rejects_the_whole_batch(api: Any, game: dict[str, Any], app: Flask) -> None:
    posts = [api.post_body("软件1", "正常发言"), api.post_body("路人", "我也来")]
    response = api.call(
        "POST", f"/api/games/{game['id']}/posts", game["director_token"], {"posts": posts}
    )
    assert response.status_code == 400
    assert response.get_json()["error"]["path"] == "$.posts[1].author"
    assert posts_count(app) == 0


def test_bad_post_fields_are_400(api: Any, game: dict[str, Any], app: Flask) -> None:
    for change, path in [
        ({"thread": "chat"}, "$.thread"),
        ({"day": "1"}, "$.day"),
        ({"posted_at": "yesterday"}, "$.posted_at"),
        ({"posted_at": "2026-11-29T20:00:00"}, "$.posted_at"),
        ({"body": None}, "$.body"),
        ({"forum_post_id": ""}, "$.forum_post_id"),
    ]:
        body = {**api.post_body("软件1", "x"), **change}
        response = api.call("POST", f"/api/games/{game['id']}/posts", game["director_token"], body)
        assert response.status_code == 400, change
        assert response.get_json()["error"]["path"] == path
    assert posts_count(app) == 0


def test_limits_are_413_and_store_nothing(db_url: str, api: Any) -> None:
    app = create_app(
        {"DATABASE_URL": db_url, "MAX_BATCH": 3, "MAX_POST_CHARS": 50, "USE_CLASSIFIER": False}
    )
    small = type(api)(app.test_client())
    game = small.make_game()
    url = f"/api/games/{game['id']}/posts"
    posts = [small.post_body("软件1", "x") for _ in range(4)]
    response = small.call("POST", url, game["director_token"], {"posts": posts})
    assert response.status_code == 413 and "超过上限3条" in response.get_json()["error"]["message"]
    response = small.call("POST", url, game["director_token"], small.post_body("软件1", "长" * 51))
    assert response.status_code == 413
    assert response.get_json()["error"]["path"] == "$.body"
    assert posts_count(app) == 0
    app.extensions["bansha_db"].dispose()


def test_posting_is_rate_limited_per_token(db_url: str, api: Any) -> None:
    app = create_app(
        {"DATABASE_URL": db_url, "RATE_LIMIT_POSTS": (5, 3600), "USE_CLASSIFIER": False}
    )
    limited = type(api)(app.test_client())
    game = limited.make_game()
    other = limited.make_game(seed="other")
    url = f"/api/games/{game['id']}/posts"
    batch = [limited.post_body("软件1", f"分析{i}") for i in range(4)]
    assert limited.call("POST", url, game["director_token"], {"posts": batch}).status_code == 200
    assert (
        limited.call(
            "POST", url, game["director_token"], limited.post_body("软件1", "a")
        ).status_code
        == 200
    )
    response = limited.call("POST", url, game["director_token"], limited.post_body("软件1", "b"))
    assert response.status_code == 429
    assert response.get_json()["error"]["code"] == "rate_limited"
    assert int(response.headers["Retry-After"]) > 0
    assert posts_count(app) == 5
    # another token (another game's director) has its own budget
    other_url = f"/api/games/{other['id']}/posts"
    response = limited.call(
        "POST", other_url, other["director_token"], limited.post_body("软件1", "c")
    )
    assert response.status_code == 200
    app.extensions["bansha_db"].dispose()


def test_rate_limit_is_shared_by_every_worker(db_url: str, api: Any) -> None:
    """Two app instances (two workers) on one database share each token's count."""
    config = {"DATABASE_URL": db_url, "RATE_LIMIT_POSTS": (3, 3600), "USE_CLASSIFIER": False}
    one, two = create_app(config), create_app(config)
    first, second = type(api)(one.test_client()), type(api)(two.test_client())
    game = first.make_game()
    url = f"/api/games/{game['id']}/posts"
    statuses = [
        (first if i % 2 else second)
        .call("POST", url, game["director_token"], first.post_body("软件1", f"第{i}帖"))
        .status_code
        for i in range(5)
    ]
    assert statuses == [200, 200, 200, 429, 429]
    one.extensions["bansha_db"].dispose()
    two.extensions["bansha_db"].dispose()


def test_decisions_become_labelled_examples(api: Any, game: dict[str, Any], db_url: str) -> None:
    insult = api.post(game, "软件11", "你个ＳＢ")
    oath = api.post(game, "软件12", "我拿人格担保我是好人")
    api.decide(game, insult["suggestion"]["id"], "change", colour="yellow")
    api.decide(game, oath["suggestion"]["id"], "dismiss", note="玩笑")
    examples = load_labelled_examples(db_url)
    assert [(e.text, e.labels) for e in examples] == [
        ("你个ＳＢ", ("insult",)),
        ("我拿人格担保我是好人", ()),
    ]
    assert all(e.ruleset == "m72" and e.id.startswith("decision-") for e in examples)


def test_text_no_database_can_store_is_400(api: Any, game: dict[str, Any], app: Flask) -> None:
    url = f"/api/games/{game['id']}/posts"
    for body in ("坏\ud800字", "空\x00字"):
        raw = json.dumps(api.post_body("软件1", body))  # \\ud800 and \\u0000 escapes
        response = api.client.post(
            url, data=raw, content_type="application/json", headers=api.auth(game["director_token"])
        )
        assert response.status_code == 400
        assert response.get_json()["error"]["path"] == "$.body"
    deep = "[" * 100_000 + "]" * 100_000
    response = api.client.post(
        url, data=deep, content_type="application/json", headers=api.auth(game["director_token"])
    )
    assert response.status_code == 400
    assert posts_count(app) == 0


def test_awkward_but_storable_posts_are_screened(
    app: Flask, api: Any, game: dict[str, Any]
) -> None:
    # (body, water, categories found): each is stored once and screened like any other post
    cases = [
        ("", True, []),
        ("😀😀😀", True, []),
        ("[b][/b][color=red][/color]", True, ["font"]),
        ("\u200b\u200b", True, []),
        ("控制\x07字符", False, []),
    ]
    for body, water, categories in cases:
        result = api.post(game, "软件1", body)
        assert result["duplicate"] is False
        assert result["water"] is water and result["counts_activity"] is not water
        assert [f["category"] for f in result["findings"]] == categories
        for finding in result["findings"]:
            assert body[finding["start"] : finding["end"]] == finding["match"]
        assert (result["suggestion"] is not None) == bool(categories)
    assert posts_count(app) == len(cases)


@pytest.fixture
def classifier_app(db_url: str) -> Iterator[Flask]:
    """The service with the trained classifier (skips when no model was trained)."""
    model = Path(os.environ.get("BANSHA_MODEL", "var/model.skops"))
    if not model.is_file():
        pytest.skip(f"no trained model at {model} (run 'make model')")
    if screener("m72", True).classifier is None:
        pytest.skip("the model file could not be loaded")
    app = create_app({"DATABASE_URL": db_url, "USE_CLASSIFIER": True})
    yield app
    app.extensions["bansha_db"].dispose()


def test_the_trained_classifier_screens_posts_when_present(classifier_app: Flask, api: Any) -> None:
    client = type(api)(classifier_app.test_client())
    game = client.make_game()
    vias = set()
    for body in ("我拿我全家担保我是好人", "你是不是上一场那个人", "如果我是狼我全家出门被车撞"):
        result = client.post(game, "软件1", body)
        assert result["suggestion"] is not None
        vias |= {f["via"] for f in result["findings"]}
    assert "classifier" in vias


def test_card_reasons_list_each_piece_of_evidence_once(classifier_app: Flask, api: Any) -> None:
    client = type(api)(classifier_app.test_client())
    game = client.make_game()
    result = client.post(game, "软件1", "你个ＳＢ，别乱跳")
    findings = result["findings"]
    # the lexicon (initials) and the classifier both flag the same span ...
    assert {f["via"] for f in findings if f["match"] == "ＳＢ"} == {"initials", "classifier"}
    # ... but the director reads it once, in Chinese, without internal category keys
    evidence = [r["text"] for r in result["suggestion"]["reasons"] if "finding" in r]
    assert evidence == ["侮辱性语言：“ＳＢ”（拼音首字母 傻逼）"]
    alone = client.post(game, "软件2", "你这种人真是让人看不起，建议回炉重造")
    assert {f["via"] for f in alone["findings"]} == {"classifier"}
    (finding,) = alone["findings"]
    shown = "、".join(f"“{e['match']}”" for e in finding["evidence"][:3])
    texts = [r["text"] for r in alone["suggestion"]["reasons"] if "finding" in r]
    assert texts == [f"侮辱性语言：“{finding['match']}”（分类模型判断，依据{shown}）"]
    # the finding's span is its strongest evidence, a part of the post, not the whole post
    assert finding["match"] == finding["evidence"][0]["match"]
    assert finding["match"] in "你这种人真是让人看不起，建议回炉重造"


class _Unexplained:
    """A classifier that flags every post as an insult and cannot say where (no ``explain``)."""

    def __init__(self) -> None:
        self.thresholds = {"insult": 0.5}

    def predict(self, texts: list[str]) -> list[dict[str, float]]:
        return [{"insult": 0.99} for _ in texts]


class _Explained(_Unexplained):
    """The same, pointing at the post's last two characters as its evidence."""

    def explain(self, text: str, category: str, **_: Any) -> tuple[Any, ...]:
        from moderation.classifier import Evidence

        return (Evidence(len(text) - 2, len(text), text[-2:], ("c:" + text[-2:],), 2.0),)


@pytest.mark.parametrize("explained", [False, True])
def test_a_finding_without_visible_evidence_is_never_a_card_suggestion(
    db_url: str, api: Any, monkeypatch: pytest.MonkeyPatch, explained: bool
) -> None:
    from api import screening
    from moderation.screen import Screener

    model = _Explained() if explained else _Unexplained()
    monkeypatch.setitem(screening._screeners, ("m72", True), Screener("m72", classifier=model))
    app = create_app({"DATABASE_URL": db_url, "USE_CLASSIFIER": True})
    try:
        client = type(api)(app.test_client())
        game = client.make_game()
        result = client.post(game, "软件1", "今天先听5号发言再决定")
    finally:
        app.extensions["bansha_db"].dispose()
    (finding,) = result["findings"]
    assert finding["via"] == "classifier"  # the finding is kept for the record ...
    if explained:
        assert finding["match"] == "决定" and result["suggestion"] is not None
    else:  # ... but with nothing a director can check it suggests no card
        assert (finding["match"], finding["evidence"]) == ("", [])
        assert result["suggestion"] is None


@pytest.mark.parametrize(("variant", "base"), [("m08_12", "m08"), ("wa004_consent", "wa004")])
def test_variant_games_screen_under_their_base_articles(api: Any, variant: str, base: str) -> None:
    count = 12 if variant == "m08_12" else 13
    players = [f"角色{i:02d}" for i in range(1, count + 1)]
    game = api.make_game(variant, players=players, roles={})
    result = api.post(game, "角色01", "你个ＳＢ，拿人格担保我是好人")
    assert {"insult", "oath"} <= {f["category"] for f in result["findings"]}
    assert {f["article"]["ruleset"] for f in result["findings"]} == {base}
    assert result["suggestion"]["colour"] == "blue"
