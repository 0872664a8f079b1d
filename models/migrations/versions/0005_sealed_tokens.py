"""sealed idempotency tokens; revoke the tokens that were derived from an Idempotency-Key

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

Before this revision a game created with an ``Idempotency-Key`` got tokens that were an HMAC of
that client-chosen key, the public game id and the holder, so whoever saw or guessed the key could
compute the director token offline. From now on tokens are random and a replay unseals them
(``idempotency_keys.sealed_tokens``, encrypted under the service's secret).

The tokens minted the old way are the first token of each holder (director, each character) of
every game that has an idempotency row: later tokens of the same holder were reissued at random
(``POST /api/games/{id}/tokens``, ``bansha token rotate-director``). This migration revokes those
that are still live — a request carrying one gets 401 ``token_revoked`` — records each game's
revocation in the audit trail (actor ``migration:0005``) and logs which games and how many
tokens. The new tokens cannot be handed out from here (no one would receive them): for each game
listed the operator runs ``bansha token rotate-director GAME`` and the director reissues the
player tokens (``POST /api/games/{id}/tokens``, the console's 玩家 page).

A game whose idempotency row was deleted before this migration (rows older than a day may be)
cannot be told apart from one created without a key: the log says so, and the operator rotates
the tokens of any such game whose creation used a key.
"""

# Repeated on purpose: a migration freezes the schema as it stood at its revision and never
# imports the models (they move on), so its table, column and trigger definitions resemble the
# models' and the other revisions' (duplicates lists them; they must not be merged).

from __future__ import annotations

import logging
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

# Frozen copies of the tables as they are at this revision (the models may change later).
_tokens = sa.table(
    "tokens",
    sa.column("id", sa.Integer),
    sa.column("game_id", sa.String),
    sa.column("kind", sa.String),
    sa.column("character", sa.String),
    sa.column("revoked_at", sa.DateTime),
)
_keys = sa.table("idempotency_keys", sa.column("game_id", sa.String))
_audit = sa.table(
    "audit_log",
    sa.column("game_id", sa.String),
    sa.column("at", sa.DateTime),
    sa.column("actor", sa.String),
    sa.column("action", sa.String),
    sa.column("detail", sa.JSON),
)


def derived_token_rows(connection: sa.Connection) -> dict[str, list[int]]:
    """Live tokens minted from an idempotency key, by game: each holder's first token."""
    first = (
        sa.select(sa.func.min(_tokens.c.id))
        .where(_tokens.c.game_id.in_(sa.select(_keys.c.game_id)))
        .group_by(_tokens.c.game_id, _tokens.c.kind, _tokens.c.character)
    )
    rows = connection.execute(
        sa.select(_tokens.c.game_id, _tokens.c.id)
        .where(_tokens.c.id.in_(first), _tokens.c.revoked_at.is_(None))
        .order_by(_tokens.c.game_id, _tokens.c.id)
    )
    found: dict[str, list[int]] = {}
    for game_id, token_id in rows:
        found.setdefault(game_id, []).append(token_id)
    return found


def upgrade() -> None:
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.add_column(sa.Column("sealed_tokens", sa.Text(), nullable=True))

    connection = op.get_bind()
    found = derived_token_rows(connection)
    # naive UTC, as models.types.UTCDateTime stores it
    now = datetime.now(UTC).replace(tzinfo=None)
    for game_id, ids in found.items():
        connection.execute(sa.update(_tokens).where(_tokens.c.id.in_(ids)).values(revoked_at=now))
        connection.execute(
            sa.insert(_audit).values(
                game_id=game_id,
                at=now,
                actor="migration:0005",
                action="revoke_token",
                detail={
                    "reason": "token derived from an Idempotency-Key (computable offline)",
                    "tokens": ids,
                },
            )
        )
        log.warning(
            "0005: game %s: revoked %d token(s) derived from its Idempotency-Key; "
            "run `bansha token rotate-director %s`, then reissue its player tokens",
            game_id,
            len(ids),
            game_id,
        )
    total = sum(len(ids) for ids in found.values())
    (log.warning if found else log.info)(
        "0005: revoked %d key-derived token(s) in %d game(s)%s; a game whose idempotency row "
        "was deleted earlier cannot be found: rotate its tokens by hand if it used a key",
        total,
        len(found),
        (": " + ", ".join(sorted(found))) if found else "",
    )


def downgrade() -> None:
    # The revocations stay (a token is revoked once and for good); only the column goes.
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.drop_column("sealed_tokens")
