"""The director's verdicts on 角色与牌: a card given directly, and 判负 (a faction judged lost,
alone or with a red card). Both can end a character's game or the whole game, so each takes a
second step.

A direct card that gives a red card (红牌 chosen, or a blue/yellow that escalates to red on the
ledger), a card with 「红牌时判负其阵营」 ticked, and a 判负 on its own are not applied at once:
the first POST answers with a confirmation page listing what will happen, found by applying the
verdict itself in the game's locked transaction and rolling it back (so the preview cannot
disagree with the real thing: the same ledger arithmetic, the same end-of-game check). Only
that page's 确认 button, which sends the same form with ``confirmed=1``, applies it. A blue or
yellow that stays below red is given at once, as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from api import cardrules
from api.console.labels import colour_label
from api.console.queue import red_warning
from api.console.service import (
    ConsoleError,
    DecisionResult,
    api_message,
    cards_by_character,
    director_action,
    reading,
    revoked_ids,
)
from api.errors import ApiError
from api.gameplay import Game
from api.locking import RolledBack, locked_game
from api.rulings import give_card as referee_give_card
from game_rules.actions import DeclareFactionLost

#: the longest 判负 reason (the API's ``reason``)
MAX_REASON = 2000


class NeedsConfirmation(ConsoleError):
    """A verdict not yet confirmed: its title, the warning, what it will do (``lines``), and
    the form to resend (``action``: its endpoint; ``form``: its fields, ``confirmed`` too)."""

    def __init__(
        self, *, title: str, warning: str, lines: list[str], form: dict[str, str], action: str,
        submit: str,
    ) -> None:  # fmt: skip
        super().__init__(warning)
        # Repeated on purpose: an exception's own fields, set one by one (it cannot be a dataclass).
        self.title = title
        self.warning = warning
        self.lines = lines
        self.form = form
        self.action = action
        self.submit = submit


def outcome_lines(game: Game, before: frozenset[str] = frozenset()) -> list[str]:
    """The factions judged lost (those not in ``before``) and the end of the game, in words."""
    names = game.params.factions
    lines = [f"{names.get(f, f)}判负" for f in game.state.lost if f not in before]
    outcome = game.outcome()
    if outcome.ended:
        winner = names.get(outcome.winner or "", outcome.winner or "")
        text = f"游戏结束：{winner}获胜" if winner else "游戏结束"
        lines.append(f"{text}（{outcome.reason}）" if outcome.reason else text)
    return lines


def faction_choices(game: Game) -> list[dict[str, str]]:
    """The factions the director may judge lost now (none once the game has ended)."""
    names = game.params.factions
    return [
        {"key": a.faction, "name": names.get(a.faction, a.faction)}
        for a in game.director_actions()
        if isinstance(a, DeclareFactionLost)
    ]


def _card_lines(result: Mapping[str, Any]) -> list[str]:
    lines = [f"{c['character']}：{colour_label(c['colour'])}" for c in result["cards"]]
    ejected = result.get("ejected") or {}
    lines.extend(f"公示：{line}" for line in ejected.get("announcements", []))
    return lines


def give_card(
    game_id: str,
    *,
    character: str,
    colour: str,
    category: str,
    reason: str,
    faction_lost: bool,
    actor: str,
    confirmed: bool = False,
) -> DecisionResult:
    """A card given directly (串号/作弊 → red ...), recorded as a decided manual suggestion.

    Raises :class:`NeedsConfirmation` (nothing stored) for a red card, direct or by escalation,
    or a 判负 with it, unless ``confirmed``."""
    if colour not in ("blue", "yellow", "red"):
        raise ConsoleError("直接判罚只能选择蓝牌、黄牌或红牌")
    if not reason.strip():
        raise ConsoleError("请写明判罚理由")
    if len(reason) > MAX_REASON:
        raise ConsoleError("判罚理由不能超过2000字")
    if not cardrules.known_category(category):
        raise ConsoleError(f"未知的违规类别：{category}")
    form = {
        "character": character,
        "colour": colour,
        "category": category,
        "reason": reason,
        **({"faction_lost": "1"} if faction_lost else {}),
    }
    try:
        with locked_game(game_id) as (session, locked):
            game = locked.game
            if character not in game.characters:
                raise ConsoleError(f"没有名为「{character}」的角色")
            live = [
                c
                for c in cards_by_character(session, locked.row).get(character, [])
                if c.id not in revoked_ids(session, locked.row)
            ]
            warning = red_warning(locked.ruleset, character, live, colour)
            lost_before = frozenset(game.state.lost)
            result = referee_give_card(
                locked,
                character=character,
                category=category,
                colour=colour,
                reason=reason.strip(),
                day=None,
                faction_lost=faction_lost,
                actor=actor,
            )
            if not confirmed and (warning is not None or faction_lost):
                raise RolledBack(_card_lines(result) + outcome_lines(locked.game, lost_before))
    except RolledBack as preview:
        faction = game.params.factions.get(game.state.factions.get(character, ""), "")
        text = f"判{colour_label(colour)}：{warning or ''}"
        if faction_lost:
            text += f"{'，' if warning else ''}同时判负{faction}（{character}所在阵营）"
        raise NeedsConfirmation(
            title=f"确认判罚：{character}",
            warning=text,
            lines=preview.value,
            form={**form, "confirmed": "1"},
            action="console.give_card",
            submit=f"确认{colour_label(colour)}" + ("并判负" if faction_lost else ""),
        ) from None
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc
    return DecisionResult.of(colour, result)


def declare_lost(
    game_id: str, *, faction: str, reason: str, actor_label: str, confirmed: bool = False
) -> list[str]:
    """判负: judge ``faction`` lost for ``reason``; what it did, for the flash messages.

    Raises :class:`NeedsConfirmation` with what it would do (nothing stored) unless
    ``confirmed``; a refusal (unknown faction, already lost, the last faction standing, a game
    over) is a :class:`ConsoleError` in the game core's words."""
    reason = reason.strip()
    if not faction:
        raise ConsoleError("请选择判负的阵营")
    if not reason:
        raise ConsoleError("请写明判负原因")
    if len(reason) > MAX_REASON:
        raise ConsoleError("判负原因不能超过2000字")
    body = {"type": "declare_faction_lost", "faction": faction, "reason": reason}
    if confirmed:
        with reading(game_id) as (_session, _row, game):
            before = frozenset(game.state.lost)
        director_action(game_id, body, actor_label=actor_label)
        with reading(game_id) as (_session, _row, game):
            return outcome_lines(game, before)
    try:
        with locked_game(game_id) as (_session, locked):
            game = locked.game
            before = frozenset(game.state.lost)
            name = game.params.factions.get(faction, faction)
            locked.apply(DeclareFactionLost(faction=faction, reason=reason))
            raise RolledBack(outcome_lines(locked.game, before))
    except RolledBack as preview:
        raise NeedsConfirmation(
            title=f"确认判负：{name}",
            warning=f"判负{name}：{reason}",
            lines=preview.value,
            form={"faction": faction, "reason": reason, "confirmed": "1"},
            action="console.declare_lost",
            submit=f"确认判负{name}",
        ) from None
    except ApiError as exc:
        raise ConsoleError(api_message(exc)) from exc


__all__ = ["NeedsConfirmation", "declare_lost", "faction_choices", "give_card", "outcome_lines"]
