"""A whole M08 game through HTTP, in which escalation produces a red card that changes the outcome.

Two games are played with the same seed, deal and moves. The only difference is one ruling on day
3: in the first the director turns 海未's oath into a yellow — her third, so three yellows escalate
to a red, she is 红牌罚下 before the vote (M08: 白天红牌罚下在被投票出局之前) and the village wins
when the last wolf is voted out that evening. In the control game the director dismisses the same
post, 海未 stays in, and the game goes on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from api import create_app
from models.migrate import upgrade

WOLVES = ["穗乃果", "绘里", "小鸟", "海未"]


class Driver:
    """Plays one game through the HTTP API."""

    def __init__(self, api: Any) -> None:
        self.api = api
        self.game = api.make_game("m08")
        self.gid = self.game["id"]
        self.token = self.game["director_token"]
        self.day = 1

    def living(self) -> list[str]:
        view = self.api.ok("GET", f"/api/games/{self.gid}/view")
        return list(view["living"])

    def talk(
        self, quiet: dict[str, int] | None = None, extra: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """Everyone alive posts 4 clean posts (``quiet`` overrides the count) plus ``extra``."""
        posts = []
        for name in self.living():
            count = (quiet or {}).get(name, 4)
            text = "的分析：今天先听听大家怎么说"
            posts += [
                self.api.post_body(name, f"第{self.day}天{name}第{i + 1}段{text}", day=self.day)
                for i in range(count)
            ]
        for name, body in (extra or {}).items():
            posts.append(self.api.post_body(name, body, day=self.day))
        response = self.api.call(
            "POST", f"/api/games/{self.gid}/posts", self.token, {"posts": posts}
        )
        assert response.status_code == 200, response.get_json()
        results = response.get_json()["results"]
        by_body = {r["forum_post_id"]: r for r in results}
        return {p["body"]: by_body[p["forum_post_id"]] for p in posts}

    def votes(self, ballots: dict[str, str]) -> None:
        posts = [
            self.api.post_body(voter, f"投票对象：{target}\n投票理由：发言有问题", thread="vote",
                               day=self.day)
            for voter, target in ballots.items()
        ]  # fmt: skip
        response = self.api.call(
            "POST", f"/api/games/{self.gid}/posts", self.token, {"posts": posts}
        )
        for result in response.get_json()["results"]:
            assert result["vote"]["status"] == "counted", result

    def skill(self, actor: str, skill: str, target: str | None = None, **extra: Any) -> Any:
        body = {"type": "skill", "actor": actor, "skill": skill, "target": target, **extra}
        return self.api.ok("POST", f"/api/games/{self.gid}/actions", self.token, body)

    def close_day(self) -> dict[str, Any]:
        result: dict[str, Any] = self.api.ok(
            "POST", f"/api/games/{self.gid}/advance", self.token, {"close": "day"}
        )
        return result

    def close_night(self) -> dict[str, Any]:
        result: dict[str, Any] = self.api.ok(
            "POST", f"/api/games/{self.gid}/advance", self.token, {"close": "night"}
        )
        self.day += 1
        return result

    def decide(self, suggestion: dict[str, Any], action: str, **body: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.api.decide(self.game, suggestion["id"], action, **body)
        return result

    def ledger(self, name: str) -> dict[str, Any]:
        data = self.api.ok("GET", f"/api/games/{self.gid}/cards", self.token)
        return next(p for p in data["players"] if p["character"] == name)


def play_until_day_three(api: Any) -> Driver:
    g = Driver(api)
    # Day 1: 海未 lurks (2 posts + her vote = 3 < 5): a fixed yellow. 凛 is elected sheriff.
    g.talk(quiet={"海未": 2})
    g.votes({name: "凛" for name in g.living()})
    day1 = g.close_day()
    lurking = [c for c in day1["cards"] if c["character"] == "海未"]
    assert [(c["colour"], c["category"]) for c in lurking] == [("yellow", "lurking")]
    assert {c["character"] for c in day1["cards"]} == {"海未"}
    # Night 1: the wolves elect 穗乃果 狼头 and kill 梨子; the seer checks 穗乃果.
    for wolf in WOLVES:
        g.skill(wolf, "leader_vote", "穗乃果")
    g.skill("穗乃果", "propose", "梨子", reason="划水")
    g.skill("穗乃果", "kill", "梨子")
    g.skill("凛", "divine", "穗乃果")
    g.close_night()
    seer = api.ok("GET", f"/api/games/{g.gid}/view", g.game["player_tokens"]["凛"])
    assert any("非村民阵营" in m["text"] for m in seer["me"]["messages"])
    # Day 2: 海未 insults; the director rules it a yellow (she knew better). 穗乃果 is voted out.
    posted = g.talk(extra={"海未": "你个ＳＢ，别乱跳"})
    insult = posted["你个ＳＢ，别乱跳"]["suggestion"]
    assert insult["category"] == "insult" and insult["colour"] == "blue"
    ruling = g.decide(insult, "change", colour="yellow", note="明知故犯")
    assert [c["colour"] for c in ruling["cards"]] == ["yellow"]
    village = ["凛", "真姬", "希", "花阳", "妮可", "千歌"]
    g.votes({**{v: "穗乃果" for v in village}, **{w: "凛" for w in WOLVES}})
    day2 = g.close_day()
    assert any("穗乃果" in a for a in day2["announcements"])
    assert day2["cards"] == []
    g.skill("穗乃果", "leader_succession", "绘里")
    # Night 2: 绘里 kills 千歌; the witch poisons 小鸟.
    g.skill("绘里", "propose", "千歌", reason="可疑")
    g.skill("绘里", "kill", "千歌")
    g.skill("真姬", "poison", "小鸟")
    g.skill("凛", "divine", "绘里")
    g.close_night()
    assert sorted(g.living()) == sorted(["凛", "真姬", "希", "花阳", "妮可", "绘里", "海未"])
    # The poisoned 小鸟 is told she is out, not by whom (the witch stays hidden) ...
    victim = api.ok("GET", f"/api/games/{g.gid}/view", g.game["player_tokens"]["小鸟"])["me"]
    out = [e for e in victim["events"] if e["type"] == "eliminated"]
    assert out and out[0]["by"] is None and "真姬" not in str(out)
    # ... and a wolf learns the 狼头's chosen target, not its reason (狼人不共群)
    wolf = api.ok("GET", f"/api/games/{g.gid}/view", g.game["player_tokens"]["海未"])["me"]
    assert "狼头选择的指杀结果：千歌" in [m["text"] for m in wolf["messages"]]
    assert "可疑" not in str(wolf)
    return g


def day_three(g: Driver, ruling: str) -> dict[str, Any]:
    g.votes({"海未": "凛"})
    posted = g.talk(extra={"海未": "我拿人格担保我是好人"})
    oath = posted["我拿人格担保我是好人"]["suggestion"]
    assert oath["category"] == "oath" and oath["colour"] == "blue"
    if ruling == "yellow":
        result = g.decide(oath, "change", colour="yellow", note="第三次违规")
    else:
        result = g.decide(oath, "dismiss", note="玩笑话")
    g.votes(
        {"凛": "绘里", "真姬": "绘里", "希": "绘里", "花阳": "绘里", "妮可": "绘里", "绘里": "凛"}
    )
    return result


def test_escalated_red_card_ejects_and_decides_the_game(api: Any) -> None:
    g = play_until_day_three(api)
    ruling = day_three(g, "yellow")
    # three yellows -> a red by escalation -> 红牌罚下 at once, before the vote
    assert [c["colour"] for c in ruling["cards"]] == ["yellow", "red"]
    red = ruling["cards"][1]
    assert red["source"] == "escalation" and len(red["escalated_from"]) == 3
    assert ruling["ejected"]["character"] == "海未" and ruling["ejected"]["eliminated_now"]
    assert "海未被红牌罚下" in api.announcements(g.game)  # public before the day closes
    assert "海未" not in g.living()
    led = g.ledger("海未")
    assert [c["colour"] for c in led["cards"]] == ["yellow", "yellow", "yellow", "red"]
    assert red["escalated_from"] == [c["id"] for c in led["cards"][:3]]
    # The day closes: 绘里, the last wolf, is voted out; 海未's earlier ballot no longer counts.
    day3 = g.close_day()
    outcome = day3["outcome"]
    assert outcome["ended"] is True and outcome["winner"] == "villagers"
    assert outcome["results"] == {"wolves": "lose", "villagers": "win"}
    order = [(e["character"], e["cause"]) for e in outcome["eliminations"]]
    assert order == [
        ("梨子", "kill"),
        ("穗乃果", "vote"),
        ("千歌", "kill"),
        ("小鸟", "poison"),
        ("海未", "red_card"),
        ("绘里", "vote"),
    ]
    assert outcome["seed"] == "test-seed"  # revealed at the end
    feed = api.ok("GET", f"/api/games/{g.gid}/announcements")
    assert feed["ended"] is True and feed["winner"] == "villagers" and feed["seed"] == "test-seed"
    texts = [a["text"] for a in feed["announcements"]]
    assert texts.index("海未被红牌罚下") < len(texts) - 1
    assert any("胜利" in t for t in texts)
    # 红牌罚下: no last words for 海未
    director = api.ok("GET", f"/api/games/{g.gid}/view", g.token)["director"]
    granted = [e for e in director["events"] if e["type"] == "last_words_granted"]
    assert "海未" not in {e["character"] for e in granted}
    # nothing more can be applied to a finished game
    response = api.call("POST", f"/api/games/{g.gid}/advance", g.token, {"close": "night"})
    assert response.status_code == 409


def test_control_game_without_the_red_card_goes_on(api: Any) -> None:
    g = play_until_day_three(api)
    ruling = day_three(g, "dismiss")
    assert ruling["cards"] == [] and ruling["ejected"] is None
    day3 = g.close_day()
    outcome = day3["outcome"]
    assert outcome["ended"] is False and outcome["winner"] is None
    assert "海未" in g.living() and "绘里" not in g.living()
    assert g.ledger("海未")["active"] == {"blue": 0, "yellow": 2, "red": 0}


@pytest.fixture
def postgres_api(api: Any, make_pg_schema: Any) -> Iterator[Any]:
    """The same helpers over an app on PostgreSQL (a fresh schema, dropped afterwards)."""
    with make_pg_schema() as schema:
        upgrade(schema.url)
        app = create_app({"DATABASE_URL": schema.url, "USE_CLASSIFIER": False})
        yield type(api)(app.test_client())
        app.extensions["bansha_db"].dispose()


@pytest.mark.postgres
def test_the_same_game_on_postgresql(postgres_api: Any) -> None:
    test_escalated_red_card_ejects_and_decides_the_game(postgres_api)
