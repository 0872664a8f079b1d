"""The deal is committed to over a server secret, so a weak director seed gives nothing away
(issue 12, item 2); at the end the secret and seed are public and the deal and every random pick
can be recomputed (``bansha verify``, the console's /verify page).
"""

from __future__ import annotations

import itertools
import json
import re
import string
from pathlib import Path
from typing import Any

from flask import Flask

from game_rules.cli import verify_main
from game_rules.randomness import commitment, derived_rng, rng_key
from game_rules.registry import get_ruleset
from game_rules.simulation import characters_for


def _create(client: Any, ruleset: str, seed: str) -> dict[str, Any]:
    players = characters_for(ruleset)
    response = client.post(
        "/api/games", json={"ruleset": ruleset, "players": players, "seed": seed}
    )
    assert response.status_code == 201
    return dict(response.get_json())


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _end(client: Any, game: dict[str, Any], *factions: str) -> dict[str, Any]:
    """End the game with the director's 判负 of ``factions``, then read the public feed."""
    for faction in factions:
        ended = client.post(
            f"/api/games/{game['id']}/actions",
            json={"type": "declare_faction_lost", "faction": faction, "reason": "测试"},
            headers=_auth(game["director_token"]),
        )
        assert ended.status_code == 200, ended.get_json()
    return dict(client.get(f"/api/games/{game['id']}/announcements").get_json())


def test_a_weak_seed_and_the_public_data_do_not_give_the_deal(app: Flask) -> None:
    client = app.test_client()
    game = _create(client, "m72", "a")
    characters = tuple(game["characters"])
    ruleset = get_ruleset("m72")
    # The attack of the issue: try every short seed, deal from it, compare with the commitment.
    alphabet = string.ascii_lowercase + string.digits
    tried = 0
    for length in (1, 2):
        for letters in itertools.product(alphabet, repeat=length):
            seed = "".join(letters)
            deal = ruleset.deal(characters, derived_rng(rng_key("", seed), "deal"), {})
            tried += 1
            assert commitment(seed, deal) != game["commitment"]
    assert tried == 36 + 36 * 36
    # Even knowing the seed is "a", the deal it alone gives is not the game's.
    director = client.get(f"/api/games/{game['id']}/view", headers=_auth(game["director_token"]))
    real = director.get_json()["director"]["roles"]
    from_seed = ruleset.deal(characters, derived_rng("a", "deal"), {})
    assert from_seed != real
    # Nothing public names the secret before the end.
    feed = client.get(f"/api/games/{game['id']}/announcements").get_json()
    assert feed["secret"] is None and feed["seed"] is None and feed["verification"] is None


def test_each_game_gets_its_own_secret(app: Flask) -> None:
    client = app.test_client()
    a, b = _create(client, "m72", "same"), _create(client, "m72", "same")
    assert a["commitment"] != b["commitment"]


def test_the_end_reveals_secret_and_seed_and_verify_reproduces_everything(
    app: Flask, tmp_path: Path, capsys: Any
) -> None:
    client = app.test_client()
    game = _create(client, "wa004", "a")
    feed = _end(client, game, "betrayers", "guardians")
    assert feed["ended"] is True and feed["seed"] == "a"
    secret = feed["secret"]
    assert isinstance(secret, str) and len(secret) == 64  # 256 bits
    texts = [a["text"] for a in feed["announcements"]]
    assert f"服务端随机秘密公开：{secret}" in texts and "随机种子公开：a" in texts
    record = feed["verification"]
    assert record["commitment"] == game["commitment"] and record["secret"] == secret
    assert [p["label"] for p in record["picks"]] == ["couples"]  # the couples' draw
    path = tmp_path / "feed.json"
    path.write_text(json.dumps(feed, ensure_ascii=False), encoding="utf-8")

    assert verify_main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "承诺值与公开的秘密、种子和身份安排一致" in out
    assert "随机抽取（couples）" in out and "结论：全部一致" in out

    # A wrong secret, a wrong seed, a forged pick: each is rejected.
    assert verify_main([str(path), "--secret", "0" * 64]) == 1
    assert "结论：不一致" in capsys.readouterr().out
    assert verify_main([str(path), "--seed", "b"]) == 1
    forged = dict(record)
    pick = dict(record["picks"][0])
    pick["result"] = list(reversed(pick["result"]))
    forged["picks"] = [pick]
    path.write_text(json.dumps(forged, ensure_ascii=False), encoding="utf-8")
    assert verify_main([str(path)]) == 1
    out = capsys.readouterr().out
    assert "✓ 承诺值" in out and "✗ 第" in out  # the deal holds, the pick does not


def test_verify_refuses_a_record_of_a_running_game(app: Flask, tmp_path: Path) -> None:
    client = app.test_client()
    game = _create(client, "m72", "a")
    path = tmp_path / "feed.json"
    feed = client.get(f"/api/games/{game['id']}/announcements").get_json()
    path.write_text(json.dumps(feed), encoding="utf-8")
    assert verify_main([str(path)]) == 2


def test_the_verify_page_checks_a_finished_game(app: Flask) -> None:
    client = app.test_client()
    game = _create(client, "m08", "a")
    running = client.get(f"/verify?game={game['id']}")
    assert running.status_code == 400 and "尚未结束" in running.get_data(as_text=True)
    _end(client, game, "wolves")
    page = client.get(f"/verify?game={game['id']}").get_data(as_text=True)
    assert "承诺值与公开的秘密、种子和身份安排一致" in page and "全部一致" in page
    assert client.get("/verify").status_code == 200  # the empty form, for anyone


def test_the_verify_page_checks_a_pasted_record(app: Flask) -> None:
    client = app.test_client()
    game = _create(client, "m08", "a")
    feed = _end(client, game, "wolves")
    form = client.get("/verify").get_data(as_text=True)
    found = re.search(r'name="csrf_token" value="([^"]+)"', form)
    assert found is not None

    def paste(record: dict[str, Any]) -> str:
        text = json.dumps(record, ensure_ascii=False)
        page = client.post("/verify", data={"csrf_token": found.group(1), "record": text})
        return page.get_data(as_text=True)

    assert "全部一致" in paste(feed)
    forged = dict(feed["verification"]) | {"secret": "0" * 64}
    assert "不一致" in paste(forged) and "承诺值与公开的秘密、种子和身份安排不一致" in paste(forged)
