"""The 玩家令牌 panel of 角色与牌: each character's player token (its state, never the token),
吊销令牌 and 重发令牌, through the API's own functions (:func:`api.tokens.replace_token`) under
the game's lock, audited as the API audits them (``via: console``)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.auth import PLAYER
from api.console.forms import MAX_NAME
from api.console.service import ConsoleError, local_time
from api.database import db
from api.gameplay import Game
from api.locking import characters_of
from api.store import lock_game
from api.tokens import replace_token
from models.game import Game as GameRow
from models.game import Token


def player_token_rows(session: Session, row: GameRow, game: Game) -> list[dict[str, Any]]:
    """Each character's player token: live (issued when) or revoked (when), never the token.

    ``live`` is the ids of the live token rows, sent back by the reissue form so that a
    resubmitted form (reload, double click) or a second director's reissue is noticed.
    """
    tokens: dict[str, list[Token]] = defaultdict(list)
    for t in session.scalars(
        select(Token).where(Token.game_id == row.id, Token.kind == PLAYER).order_by(Token.id)
    ):
        tokens[t.character or ""].append(t)
    out = []
    for character in game.characters:
        held = tokens.get(character, [])
        live = [t for t in held if t.revoked_at is None]
        last = held[-1] if held else None
        out.append(
            {
                "character": character,
                "player": game.state.players.get(character, character),
                "live": ",".join(str(t.id) for t in live),
                "state": "live" if live else ("revoked" if last else "none"),
                "issued": local_time(live[-1].created_at) if live else "",
                "revoked": local_time(last.revoked_at) if last and last.revoked_at else "",
                "count": len(held),
            }
        )
    return out


@dataclass(frozen=True)
class TokenChange:
    """A revoked or reissued player token; ``token`` (reissue only) is shown once, never kept."""

    character: str
    revoked: int
    token: str | None = None


#: the longest token-change reason kept in the audit (the API's own limit)
MAX_TOKEN_REASON = 2000


def _change_player_token(
    game_id: str,
    character: str,
    *,
    reissue: bool,
    expected_live: str | None,
    actor_label: str,
    reason: str = "",
) -> TokenChange:
    """The API's revoke / reissue (:mod:`api.tokens`): same functions, same lock, same audit
    (``reason``, optional, goes to the audit trail as the API's does)."""
    if not character:
        raise ConsoleError("请选择角色")
    reason = reason.strip()
    if len(reason) > MAX_TOKEN_REASON:
        raise ConsoleError(f"原因不能超过{MAX_TOKEN_REASON}个字符，令牌没有改动")
    unknown = ConsoleError(f"没有名为「{character}」的角色，令牌没有改动")
    if len(character) > MAX_NAME:
        raise unknown
    with db().write() as session:
        row = lock_game(session, game_id)
        if character not in characters_of(row):
            raise unknown
        ids, token = replace_token(
            session,
            game_id,
            PLAYER,
            character,
            reissue=reissue,
            actor=actor_label,
            detail={"reason": reason, "via": "console"},
        )
        if expected_live is not None and ",".join(map(str, ids)) != expected_live:
            # Rolled back with the transaction (nothing revoked, issued or audited): the page the
            # director acted on is out of date.
            raise ConsoleError(
                f"「{character}」的令牌刚刚已经变动（重复提交，或有人同时操作），这次没有重发；"
                "请确认下方的令牌状态后再操作"
            )
    return TokenChange(character=character, revoked=len(ids), token=token)


def revoke_player_token(game_id: str, *, character: str, actor_label: str, reason: str = "") -> int:
    """吊销令牌: ``character``'s live player token stops working at once; how many were live."""
    change = _change_player_token(
        game_id,
        character,
        reissue=False,
        expected_live=None,
        actor_label=actor_label,
        reason=reason,
    )
    return change.revoked


def reissue_player_token(
    game_id: str, *, character: str, expected_live: str, actor_label: str, reason: str = ""
) -> TokenChange:
    """重发令牌: revoke ``character``'s live player token and issue a new one (shown once).

    ``expected_live`` is the live token ids the director saw (``player_token_rows``); if they
    changed meanwhile nothing is done, so a reloaded result page does not silently replace the
    token just shown.
    """
    return _change_player_token(
        game_id,
        character,
        reissue=True,
        expected_live=expected_live,
        actor_label=actor_label,
        reason=reason,
    )


__all__ = ["TokenChange", "player_token_rows", "reissue_player_token", "revoke_player_token"]
