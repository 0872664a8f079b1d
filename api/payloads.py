"""The JSON shapes of suggestions, decisions, cards and ingested posts."""

# Repeated on purpose: one field-by-field function per record (a column dump would leak new ones).

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api import cardrules
from models.cards import AppealRuling, Card, CardAppeal, CardRevocation, Decision, Suggestion
from models.posts import Post


def suggestion_json(
    s: Suggestion, post: Post | None = None, decision: Decision | None = None
) -> dict[str, Any]:
    """A suggestion as JSON (with its post and decision when given)."""
    out: dict[str, Any] = {
        "id": s.id,
        "game_id": s.game_id,
        "character": s.character,
        "kind": s.kind,
        "category": s.category,
        "colour": s.colour,
        "colour_name": cardrules.colour_name(s.colour),
        "day": s.day,
        "status": s.status,
        "reasons": s.reasons,
        "created_at": s.created_at.isoformat(),
        "post": None,
        "decision": None,
    }
    if post is not None:
        out["post"] = {
            "id": post.id,
            "forum_post_id": post.forum_post_id,
            "thread": post.thread,
            "day": post.day,
            "posted_at": post.posted_at.isoformat(),
            "body": post.body,
            "findings": post.findings,
        }
    if decision is not None:
        out["decision"] = decision_json(decision)
    return out


def decision_json(d: Decision) -> dict[str, Any]:
    """A decision as JSON."""
    return {
        "id": d.id,
        "suggestion_id": d.suggestion_id,
        "action": d.action,
        "colour": d.colour,
        "colour_name": cardrules.colour_name(d.colour),
        "note": d.note,
        "faction_lost": d.faction_lost,
        "decided_by": d.decided_by,
        "decided_at": d.decided_at.isoformat(),
    }


def card_json(
    c: Card,
    *,
    revocation: CardRevocation | None = None,
    appeal: CardAppeal | None = None,
    ruling: AppealRuling | None = None,
) -> dict[str, Any]:
    """A card as JSON, with its revocation and its appeal (and that appeal's ruling) if any."""
    return {
        "id": c.id,
        "character": c.character,
        "colour": c.colour,
        "colour_name": cardrules.colour_name(c.colour),
        "source": c.source,
        "category": c.category,
        "reason": c.reason,
        "escalated_from": list(c.escalated_from),
        "decision_id": c.decision_id,
        "issued_by": c.issued_by,
        "day": c.day,
        "created_at": c.created_at.isoformat(),
        "revoked": None if revocation is None else revocation_json(revocation),
        "appeal": None if appeal is None else appeal_json(appeal, ruling),
    }


def revocation_json(r: CardRevocation) -> dict[str, Any]:
    """A revocation as JSON."""
    return {
        "id": r.id,
        "card_id": r.card_id,
        "kind": r.kind,
        "reason": r.reason,
        "cause_id": r.cause_id,
        "revoked_by": r.revoked_by,
        "ejection_withdrawn": r.ejection_withdrawn,
        "created_at": r.created_at.isoformat(),
    }


def appeal_json(a: CardAppeal, ruling: AppealRuling | None = None) -> dict[str, Any]:
    """An appeal as JSON, with its ruling once there is one."""
    return {
        "id": a.id,
        "card_id": a.card_id,
        "character": a.character,
        "text": a.text,
        "appealed_by": a.appealed_by,
        "created_at": a.created_at.isoformat(),
        "ruling": None if ruling is None else ruling_json(ruling),
    }


def ruling_json(r: AppealRuling) -> dict[str, Any]:
    """An appeal's ruling as JSON."""
    return {
        "id": r.id,
        "appeal_id": r.appeal_id,
        "ruling": r.ruling,
        "note": r.note,
        "ruled_by": r.ruled_by,
        "created_at": r.created_at.isoformat(),
    }


@dataclass
class PostRecord:
    """A post as stored (what the response and the suggestion logic read)."""

    id: int
    forum_post_id: str
    author: str
    thread: str
    day: int
    body: str
    is_water: bool
    zombie: bool
    counts_activity: bool
    findings: list[dict[str, Any]]
    vote: dict[str, Any] | None


def post_result(
    post: Post | PostRecord, suggestion: Suggestion | None, duplicate: bool
) -> dict[str, Any]:
    """The response for one ingested post."""
    return {
        "post_id": post.id,
        "forum_post_id": post.forum_post_id,
        "duplicate": duplicate,
        "author": post.author,
        "thread": post.thread,
        "day": post.day,
        "water": post.is_water,
        "zombie": post.zombie,
        "counts_activity": post.counts_activity,
        "findings": post.findings,
        "vote": post.vote,
        "suggestion": None if suggestion is None else suggestion_json(suggestion),
    }


def stored_post_json(post: Post | PostRecord) -> dict[str, Any]:
    """What a post id already names (the answer to a post that reuses it with other content);
    ``post_id`` is None for an earlier post of the same batch, not stored yet."""
    return {
        "post_id": post.id or None,
        "forum_post_id": post.forum_post_id,
        "author": post.author,
        "thread": post.thread,
        "day": post.day,
        "body": post.body,
    }
