"""红牌罚下: a red card's ejection through the game core."""

from __future__ import annotations

from typing import Any

from api.locking import LockedGame
from api.store import audit
from game_rules import actions as act
from game_rules.events import Announced, Eliminated


def eject(
    locked: LockedGame, character: str, reason: str, actor: str, faction_lost: bool
) -> dict[str, Any]:
    """红牌罚下 through the game core; the announcement is public at once."""
    game = locked.game
    if game.state.ended:
        detail = {"character": character, "applied": False, "message": "游戏已经结束，红牌仅记录"}
        audit(locked.session, locked.row.id, actor, "ejection", detail)
        return detail
    was_alive = game.state.is_alive(character)
    events = locked.apply(act.Eject(character, reason, faction_lost))
    announcements = [e.text for e in events if isinstance(e, Announced)]
    detail = {
        "character": character,
        "applied": True,
        "was_alive": was_alive,
        # False when the ruleset times the exit after the day's vote (M72)
        "eliminated_now": any(isinstance(e, Eliminated) for e in events),
        "faction_lost": faction_lost,
        "announcements": announcements,
        "game_ended": game.state.ended,
    }
    audit(locked.session, locked.row.id, actor, "ejection", detail)
    return detail
