"""Night actions that need more than a target, entered in the console (page 日夜与公示).

M08: 指杀 proposals carry a two-character 指杀理由 (the engine judges it), the 狼头 picks the kill
among them, the 狼头's 决战 plan is picked in three selects and the other wolves answer
同意/不同意. wa004_consent: the 牛头人 target's question is shown and answered (同意), or the
deadline answers it (不同意). The variant rulesets are offered and created by the new-game form.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from game_rules.wa004.setups import STANDARD_KINDS, arranged_game
from models.audit import AuditEntry
from models.game import Game as GameRow
from models.game import GameEvent

M08_PLAYERS = ["穗乃果", "绘里", "小鸟", "海未", "凛", "真姬", "希", "花阳", "妮可", "千歌", "梨子"]
M08_ROLES = dict(
    zip(M08_PLAYERS, ["wolf"] * 4 + ["villager"] * 4 + ["seer", "witch", "hunter"], strict=True)
)
WOLVES = M08_PLAYERS[:4]
LEADER = "穗乃果"
NOT_WOLVES = M08_PLAYERS[4:]

WA004_PLAYERS = [f"角色{i}" for i in range(1, 14)]
NOBLE = "角色13"
NTR_SEED = "console-ntr"


# ---------------------------------------------------------------------------------------------
# helpers


def plain(html: str) -> str:
    """``html`` without the ``<bdi>`` isolating names (the tests read the names' text)."""
    return re.sub(r"</?bdi>", "", html)


def flashes(html: str) -> list[str]:
    return [unescape(m) for m in re.findall(r'<li class="flash flash-\w+">(.*?)</li>', html, re.S)]


def action_rows(html: str) -> dict[tuple[str, str], str]:
    """The night-action rows of /day by (actor, skill), each row's markup."""
    rows: dict[tuple[str, str], str] = {}
    for row in re.findall(r'<li class="night-row">.*?</li>', html, re.S):
        found = re.search(
            r'name="actor" value="([^"]+)">\s*<input type="hidden" name="skill" value="([^"]+)"',
            row,
        )
        if found is not None:
            rows[(unescape(found.group(1)), unescape(found.group(2)))] = row
    return rows


def options(markup: str, name: str) -> list[list[str]]:
    """The option values of every select called ``name`` in ``markup``."""
    return [
        [unescape(v) for v in re.findall(r'<option value="([^"]*)"', select)]
        for select in re.findall(rf'<select name="{name}"[^>]*>(.*?)</select>', markup, re.S)
    ]


def buttons(markup: str) -> list[tuple[str, str]]:
    """(value, label) of the choice buttons in ``markup``."""
    found = re.findall(
        r'<button type="submit" name="choice" value="([^"]*)">(.*?)</button>', markup
    )
    return [(unescape(v), unescape(t)) for v, t in found]


def counts(app: Flask, game_id: str) -> tuple[int, int]:
    """(game events, audit entries) of ``game_id``."""
    with app.extensions["bansha_db"].read() as session:
        events = session.scalar(
            select(func.count()).select_from(GameEvent).where(GameEvent.game_id == game_id)
        )
        audits = session.scalar(
            select(func.count()).select_from(AuditEntry).where(AuditEntry.game_id == game_id)
        )
    return int(events or 0), int(audits or 0)


def audited_actions(app: Flask, game_id: str) -> list[dict[str, Any]]:
    """The action bodies the console audited for ``game_id``, oldest first."""
    with app.extensions["bansha_db"].read() as session:
        entries = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.game_id == game_id, AuditEntry.action == "action")
            .order_by(AuditEntry.id)
        ).all()
        assert all(e.detail["via"] == "console" for e in entries)
        return [dict(e.detail["action"]) for e in entries]


def told(console: Any, game: dict[str, Any], character: str) -> list[str]:
    """Everything ``character`` was told privately so far."""
    events = console.director_view(game)["director"]["events"]
    return [e["text"] for e in events if e["type"] == "told" and character in e["to"]]


def act(console: Any, data: dict[str, Any]) -> str:
    """Post the night-action form; the /day page after the redirect."""
    response = console.client.post("/action", data={"csrf_token": console.csrf("/day"), **data})
    assert response.status_code == 302
    return str(plain(console.html("/day")))


def create(console: Any, ruleset: str, players: list[str], roles: dict[str, str], seed: str
           ) -> dict[str, Any]:  # fmt: skip
    data: dict[str, Any] = console.new_game(ruleset, players, roles, seed)
    console.login(data["director_token"])
    return data


def m08_first_night(console: Any) -> dict[str, Any]:
    """An M08 game at night 1 (day 1 closed with 加速: no lurking cards), 穗乃果 elected 狼头
    by the four wolves' 争权 votes entered in the console."""
    game = create(console, "m08", M08_PLAYERS, M08_ROLES, "console-m08")
    console.form("/day/close", {"confirmed": "1", "accelerated": "1"}, page="/day")
    for wolf in WOLVES:
        act(console, {"actor": wolf, "skill": "leader_vote", "target": LEADER})
    return game


# ---------------------------------------------------------------------------------------------
# M08: 指杀 with a 指杀理由


def test_m08_proposals_carry_a_reason_and_the_leader_kills(app: Flask, console: Any) -> None:
    game = m08_first_night(console)
    rows = action_rows(plain(console.html("/day")))
    proposal = rows[("绘里", "propose")]
    assert re.search(
        r'指杀理由 <input type="text" name="reason"[^>]*placeholder="如：刀人"', proposal
    )
    # 「请选择」 first: nothing is preselected
    assert options(proposal, "target") == [["__pick__", *M08_PLAYERS]]
    # target-only rows stay as they were: a target select and 记录, nothing else
    divine = rows[("妮可", "divine")]
    assert 'name="reason"' not in divine and 'name="plan"' not in divine
    assert buttons(divine) == [] and '<button type="submit">记录</button>' in divine
    assert ("穗乃果", "kill") not in rows  # nothing proposed yet

    html = act(console, {"actor": "绘里", "skill": "propose", "target": "凛", "reason": "冲锋"})
    assert "已记录：绘里的行动" in flashes(html)
    assert "绘里 &lt;提交指杀&gt; → 凛（冲锋）" in html

    # A reason that is not two characters: the engine's message, and nothing stored.
    before = counts(app, game["id"])
    for bad in ("刀", "三个字", "  "):
        html = act(console, {"actor": "小鸟", "skill": "propose", "target": "真姬", "reason": bad})
        assert "指杀须附上两个字的指杀理由" in flashes(html)
        assert counts(app, game["id"]) == before
    assert ("小鸟", "propose") in action_rows(html)

    act(console, {"actor": "小鸟", "skill": "propose", "target": "真姬", "reason": "划水"})
    kill = action_rows(plain(console.html("/day")))[(LEADER, "kill")]
    assert options(kill, "target") == [["__pick__", "凛", "真姬"]]  # only what was proposed
    assert 'name="reason"' not in kill
    html = act(console, {"actor": LEADER, "skill": "kill", "target": "真姬"})
    assert "穗乃果 &lt;杀人&gt; → 真姬（划水）" in html
    assert "狼头选择的指杀结果：真姬" in told(console, game, "海未")
    assert "划水" not in "".join(told(console, game, "海未"))  # the result only, not why
    assert "通灵：今晚被指杀的角色是真姬" in told(console, game, "千歌")

    # The audit keeps the reason; a target-only skill's body is unchanged (no reason/choice).
    audited = audited_actions(app, game["id"])
    assert audited[0] == {"type": "skill", "actor": "穗乃果", "skill": "leader_vote",
                          "target": "穗乃果"}  # fmt: skip
    assert {"type": "skill", "actor": "绘里", "skill": "propose", "target": "凛",
            "reason": "冲锋"} in audited  # fmt: skip
    assert audited[-1] == {"type": "skill", "actor": LEADER, "skill": "kill", "target": "真姬"}

    console.form("/night/close", {"confirmed": "1"}, page="/day")
    assert "夜晚出局角色：真姬" in console.announcements(game)
    timeline = unescape(console.html("/timeline"))
    assert "小鸟 发动<提交指杀> → 真姬（划水）" in timeline


# ---------------------------------------------------------------------------------------------
# M08: 决战 plan and 同意决战


def test_m08_duel_plan_and_agreements_end_the_game(app: Flask, console: Any) -> None:
    game = m08_first_night(console)
    rows = action_rows(plain(console.html("/day")))
    duel = rows[(LEADER, "duel")]
    assert 'name="target"' not in duel
    assert re.findall(r"<label class=\"small\">(第\d刀) <select name=\"plan\"", duel) == [
        "第1刀", "第2刀", "第3刀",
    ]  # fmt: skip
    # every living non-wolf, as the engine allows them; the first slot must be filled
    assert options(duel, "plan") == [["", *NOT_WOLVES]] * 3
    assert re.search(r'<select name="plan" class="plan" required>\s*<option value="">请选择', duel)
    assert ("绘里", "duel_agree") not in rows

    before = counts(app, game["id"])
    html = act(console, {"actor": LEADER, "skill": "duel", "plan": ["凛", "", "希"]})
    assert "刀法须从第一个起依次填写，中间不能留空" in flashes(html)
    html = act(console, {"actor": LEADER, "skill": "duel", "plan": ["凛", "凛", ""]})
    assert "轮次决胜须提交之后三天（至多三个）不同的刀法" in flashes(html)
    assert counts(app, game["id"]) == before

    html = act(console, {"actor": LEADER, "skill": "duel", "plan": ["梨子", "凛", "希"]})
    assert "穗乃果 &lt;决战&gt; → 梨子、凛、希" in html
    rows = action_rows(html)
    assert (LEADER, "duel") not in rows
    for wolf in WOLVES[1:]:
        agree = rows[(wolf, "duel_agree")]
        assert buttons(agree) == [("yes", "同意"), ("no", "不同意")]
        assert 'name="target"' not in agree and "记录</button>" not in agree

    act(console, {"actor": "绘里", "skill": "duel_agree", "choice": "no"})
    html = act(console, {"actor": "小鸟", "skill": "duel_agree", "choice": "yes"})
    assert "绘里 &lt;同意决战&gt; → 不同意" in html and "小鸟 &lt;同意决战&gt; → 同意" in html
    assert not console.director_view(game)["ended"]  # 2 of 4 agree: not yet 过半数
    html = act(console, {"actor": "海未", "skill": "duel_agree", "choice": "yes"})
    # 3 of 4: 决战 is judged at once; 千歌 (女巫) has not used 救药, so the wolves lose.
    announcements = console.announcements(game)
    assert "狼人阵营发动<决战>，执行轮次决胜" in announcements
    won = "村民阵营胜利，游戏结束（轮次决胜：女巫仍未使用过救药，狼人阵营直接判负）"
    assert won in announcements
    assert console.director_view(game)["ended"]

    audited = audited_actions(app, game["id"])[len(WOLVES) :]
    assert audited == [
        {"type": "skill", "actor": LEADER, "skill": "duel", "target": None, "choice": "梨子,凛,希"},
        {"type": "skill", "actor": "绘里", "skill": "duel_agree", "target": None, "choice": "no"},
        {"type": "skill", "actor": "小鸟", "skill": "duel_agree", "target": None, "choice": "yes"},
        {"type": "skill", "actor": "海未", "skill": "duel_agree", "target": None, "choice": "yes"},
    ]
    events = console.director_view(game)["director"]["events"]
    plans = [e["detail"]["plan"] for e in events if e["type"] == "action_taken"
             and e["skill"] == "duel"]  # fmt: skip
    assert plans == [["梨子", "凛", "希"]]


def test_m08_duel_refused_by_half_the_wolves(console: Any) -> None:
    game = m08_first_night(console)
    act(console, {"actor": LEADER, "skill": "duel", "plan": ["凛", "", ""]})
    act(console, {"actor": "绘里", "skill": "duel_agree", "choice": "no"})
    html = act(console, {"actor": "小鸟", "skill": "duel_agree", "choice": "no"})
    rows = action_rows(html)
    # 2 of 4 against: refused; nobody is asked any more, and 决战 is spent
    assert not [key for key in rows if key[1] in ("duel", "duel_agree")]
    assert ("海未", "propose") in rows
    assert not console.director_view(game)["ended"]
    assert "穗乃果 &lt;决战&gt; → 凛" in html


# ---------------------------------------------------------------------------------------------
# wa004_consent: the 牛头人 target answers


def wa004_question(console: Any) -> tuple[dict[str, Any], str, str]:
    """A wa004_consent game whose night 2 waits for the 牛头人 target's answer (the couples are
    arranged from the seed: use with the ``seed_only`` fixture).

    Every 变节者 picks the 单身贵族 as true love; night 1 the 变节者 b0 breaks up (分手) and
    the 单身贵族 burns (烧烤) a 守护者 of the two-guardian couple; night 2 the single b0 uses
    牛头人 on g1 (a 守护者 with a lover), which asks g1. Returns (game, b0, g1).
    """
    arranged, pairs = arranged_game(STANDARD_KINDS, seed=NTR_SEED, names=WA004_PLAYERS, noble=NOBLE)
    roles = {c: arranged.state.role(c) for c in WA004_PLAYERS}
    game = create(console, "wa004_consent", WA004_PLAYERS, roles, NTR_SEED)
    (b0, _g0), (_b1, g1) = pairs[0], pairs[1]
    g4a, b5 = pairs[4][0], pairs[5][0]
    for betrayer in [c for c in WA004_PLAYERS if roles[c] == "betrayer"]:
        act(console, {"actor": betrayer, "skill": "true_love", "target": NOBLE})
    console.form("/day/close", {"confirmed": "1", "accelerated": "1"}, page="/day")
    act(console, {"actor": b0, "skill": "breakup", "target": ""})
    act(console, {"actor": NOBLE, "skill": "barbecue", "target": g4a})
    console.form("/night/close", {"confirmed": "1"}, page="/day")
    console.form("/day/close", {"confirmed": "1", "accelerated": "1"}, page="/day")
    act(console, {"actor": b0, "skill": "ntr", "target": g1})
    act(console, {"actor": NOBLE, "skill": "barbecue", "target": b5})
    console.form("/night/close", {"confirmed": "1"}, page="/day")
    return game, b0, g1


def test_wa004_consent_question_shown_and_agreed(app: Flask, console: Any, seed_only: None) -> None:
    game, b0, g1 = wa004_question(console)
    html = plain(console.html("/day"))
    assert "第2天 夜晚" in html
    row = action_rows(html)[(g1, "ntr_consent")]
    assert '&lt;牛头人答复&gt; <span class="tag">须决定</span>' in row
    assert f"私下告知：牛头人（NTR）：是否同意和{b0}成为情侣？" in unescape(row)
    assert buttons(row) == [("yes", "同意"), ("no", "不同意")]
    assert 'name="target"' not in row
    assert 'id="close-night" disabled' in html

    html = act(console, {"actor": g1, "skill": "ntr_consent", "choice": "yes"})
    assert f"已记录：{g1}的行动" in flashes(html)
    assert "第3天" in html and (g1, "ntr_consent") not in action_rows(html)
    assert f"你与{b0}成为情侣" in told(console, game, g1)
    assert audited_actions(app, game["id"])[-1] == {
        "type": "skill", "actor": g1, "skill": "ntr_consent", "target": None, "choice": "yes",
    }  # fmt: skip


def test_wa004_consent_deadline_is_no(console: Any, seed_only: None) -> None:
    game, b0, g1 = wa004_question(console)
    assert 'id="deadline"' in plain(console.html("/day"))
    console.form("/deadline", {}, page="/day")
    html = plain(console.html("/day"))
    assert "第3天" in html and (g1, "ntr_consent") not in action_rows(html)
    heard = told(console, game, g1)
    assert f"你未按时答复，视为不同意和{b0}成为情侣" in heard
    assert f"你与{b0}成为情侣" not in heard


# ---------------------------------------------------------------------------------------------
# The new-game form offers the variants


@pytest.mark.parametrize(
    ("ruleset", "title", "count"),
    [
        ("m08_12", "[M08]『LoveLive!』12人变体（12人）", 12),
        ("wa004_consent", "『白色相簿1&amp;2』牛头人须对方同意（13人）", 13),
    ],
)
def test_new_game_form_offers_and_creates_the_variants(
    app: Flask, console: Any, ruleset: str, title: str, count: int
) -> None:
    form = console.html("/new")
    offered = re.search(
        rf'<input type="radio" name="ruleset" value="{ruleset}" > (.*?) <span class="muted">'
        rf"· (\d+)名角色</span>",
        form,
    )
    assert offered is not None and offered.groups() == (title, str(count))
    response = console.create_in_form(ruleset, count, "variant")
    assert response.status_code == 200, response.get_data(as_text=True)
    html = response.get_data(as_text=True)
    assert len(re.findall(r'<tr class="faction-\w+">', html)) == count
    with app.extensions["bansha_db"].read() as session:
        assert session.scalars(select(GameRow.ruleset)).all() == [ruleset]
    assert title in console.html("/deal")
