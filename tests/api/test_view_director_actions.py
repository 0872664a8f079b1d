"""The director's view lists the discretionary actions (``Game.director_actions``) beside the
legal ones, and only the director's view does."""

from __future__ import annotations

from typing import Any

from game_rules.actions import DIRECTOR_CAUSE_PLACEHOLDER, SUBSTITUTE_PLAYER_PLACEHOLDER


def test_director_view_lists_discretionary_actions(api: Any, game: dict[str, Any]) -> None:
    path, token = f"/api/games/{game['id']}/view", game["director_token"]
    director = api.ok("GET", path, token)["director"]
    assert director["legal_actions"] == [{"type": "CloseDay", "at": None}]
    listed = director["director_actions"]
    ejects = [a for a in listed if a["type"] == "Eject" and not a["faction_loses"]]
    assert [a["character"] for a in ejects] == api.M72_PLAYERS
    assert {a["cause"] for a in ejects} == {DIRECTOR_CAUSE_PLACEHOLDER}
    assert {"type": "ScheduleDay", "closes_at": None, "accelerated": True} in listed
    substitute = {
        "type": "Substitute",
        "character": "软件3",
        "player": SUBSTITUTE_PLAYER_PLACEHOLDER,
    }
    assert substitute in listed
    # the director replaces the placeholder and gives it through /actions; it is then used up
    api.ok(
        "POST",
        f"/api/games/{game['id']}/actions",
        token,
        {"type": "substitute", "character": "软件3", "player": "新玩家"},
    )
    assert substitute not in api.ok("GET", path, token)["director"]["director_actions"]
    player = api.ok("GET", path, game["player_tokens"]["软件3"])
    assert "director" not in player
