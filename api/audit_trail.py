"""Reading the audit trail: ``GET /api/games/{id}/audit``, the console's 审计记录 page and
``bansha audit export`` (CSV or JSON Lines) all read entries through :func:`entries` and shape
them with :func:`entry_json`, so the three never disagree.

Each entry names who the act is attributed to (``actor``: ``director``, a director's signature,
``player:<character>``, ``system`` for the rules' own consequences) and the identity the request
proved (``actor_kind``, ``actor_token_id``: the token row, as ``bansha token list`` shows it;
``actor_ref``: the admin token's fingerprint).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from flask import Blueprint, Response, jsonify, request
from sqlalchemy import select
from sqlalchemy.orm import Session

from api import schemas
from api.auth import identify_director_or_admin
from api.database import db
from api.errors import BadRequest
from api.openapi import endpoint
from api.store import get_game
from models.audit import AuditAction, AuditEntry

bp = Blueprint("audit", __name__)

#: how the console names each action
ACTION_NAMES: dict[AuditAction, str] = {
    AuditAction.CREATE_GAME: "创建游戏",
    AuditAction.DECISION: "裁决建议",
    AuditAction.CARD: "给牌",
    AuditAction.ESCALATION: "升级",
    AuditAction.EJECTION: "红牌罚下",
    AuditAction.REVOCATION: "撤销牌",
    AuditAction.EJECTION_WITHDRAWN: "撤销罚下",
    AuditAction.APPEAL: "申诉",
    AuditAction.APPEAL_RULING: "申诉裁决",
    AuditAction.ACTION: "游戏操作",
    AuditAction.CLOSE_DAY: "关闭白天",
    AuditAction.CLOSE_NIGHT: "关闭夜晚",
    AuditAction.REVOKE_TOKEN: "吊销令牌",
    AuditAction.ISSUE_TOKEN: "签发令牌",
    AuditAction.BAN: "禁赛",
    AuditAction.BAN_OVERRIDE: "放行禁赛玩家",
    AuditAction.ASSISTANT: "登记场外助理",
    AuditAction.ANNOUNCEMENT_POSTED: "公示已发布",
    AuditAction.FORUM_INTAKE: "论坛导入",
    AuditAction.FORUM_ACCOUNT_MAPPED: "关联论坛账号",
}
#: the columns of an export, in order (``detail`` as a JSON object)
COLUMNS = (
    "id",
    "game_id",
    "at",
    "action",
    "actor",
    "actor_kind",
    "actor_token_id",
    "actor_ref",
    "detail",
)
MAX_PAGE = 500


def parse_action(raw: str | None) -> AuditAction | None:
    """The ``action`` filter (None: every action); 400 for an unknown one."""
    if raw is None or raw == "":
        return None
    try:
        return AuditAction(raw)
    except ValueError:
        known = ", ".join(a.value for a in AuditAction)
        raise BadRequest(f"未知的审计类别：{raw!r}（可选：{known}）", path="action") from None


def entries(
    session: Session,
    game_id: str | None = None,
    *,
    action: AuditAction | None = None,
    after: int = 0,
    limit: int | None = None,
) -> Iterator[AuditEntry]:
    """Entries in the order they were written (one game's, or every game's), after id ``after``."""
    query = select(AuditEntry).where(AuditEntry.id > after).order_by(AuditEntry.id)
    if game_id is not None:
        query = query.where(AuditEntry.game_id == game_id)
    if action is not None:
        query = query.where(AuditEntry.action == action.value)
    if limit is not None:
        query = query.limit(limit)
    yield from session.scalars(query.execution_options(yield_per=500))


def entry_json(e: AuditEntry) -> dict[str, Any]:
    """One entry as JSON."""
    return {
        "id": e.id,
        "game_id": e.game_id,
        "at": e.at.isoformat(),
        "action": e.action,
        "actor": e.actor,
        "actor_kind": e.actor_kind,
        "actor_token_id": e.actor_token_id,
        "actor_ref": e.actor_ref,
        "detail": e.detail,
    }


def write_jsonl(rows: Iterable[AuditEntry], out: TextIO) -> int:
    """Write one JSON object per line; how many."""
    n = 0
    for e in rows:
        out.write(json.dumps(entry_json(e), ensure_ascii=False, sort_keys=True) + "\n")
        n += 1
    return n


def write_csv(rows: Iterable[AuditEntry], out: TextIO) -> int:
    """Write a header and one row per entry (``detail`` as compact JSON); how many."""
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    n = 0
    for e in rows:
        data = entry_json(e)
        data["detail"] = json.dumps(e.detail, ensure_ascii=False, sort_keys=True)
        writer.writerow(["" if data[c] is None else data[c] for c in COLUMNS])
        n += 1
    return n


WRITERS = {"csv": write_csv, "jsonl": write_jsonl}


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise BadRequest(f"{name} 应为 {low} 到 {high} 之间的整数", path=name)
    return int(raw)


@endpoint(
    bp,
    "GET",
    "/api/games/<game_id>/audit",
    summary="The game's audit trail: who did what, when, as which authenticated token",
    auth=("director", "admin"),
    tag="audit",
    response=schemas.AUDIT_RESPONSE,
    errors=(400, 401, 403, 404),
    query={
        "action": "only this kind of entry (decision, card, revocation, appeal_ruling, …)",
        "after": "entries after this id (paging; default 0)",
        "limit": f"at most this many (1–{MAX_PAGE}, default {MAX_PAGE})",
    },
    description="Entries in the order they were written. `actor` is who the act is attributed "
    "to (`system` for the rules' own consequences, such as an escalation); `actor_kind`, "
    "`actor_token_id` (the token row, as `bansha token list` shows it) and `actor_ref` (the "
    "admin token's fingerprint) are the identity the request proved. `next_after` pages on.",
)
def game_audit(game_id: str) -> Response:
    with db().read() as session:
        get_game(session, game_id)
        identify_director_or_admin(session, game_id)
        action = parse_action(request.args.get("action"))
        after = _int_arg("after", 0, 0, 2**62)
        limit = _int_arg("limit", MAX_PAGE, 1, MAX_PAGE)
        found = [
            entry_json(e)
            for e in entries(session, game_id, action=action, after=after, limit=limit)
        ]
    next_after = found[-1]["id"] if len(found) == limit else None
    return jsonify({"entries": found, "next_after": next_after})
