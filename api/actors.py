"""Who a request acts as, for the audit trail: the authenticated token, never a typed name.

Authentication (:func:`api.auth.identify`, the console's session, the admin check of game
creation) records the request's :class:`Principal`; :func:`api.store.audit` writes it into every
entry the request causes, including the rules' own consequences (an escalation, a fixed 潜水
card) that are attributed to ``system``. A name the client typed (the ``director`` field of a
decision, the console's signature) stays what the entry is attributed to (``actor``), beside the
identity that was proven. Outside a request (the ``bansha`` command line) :func:`acting_as` sets it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from flask import g, has_app_context

from models.audit import ActorKind  # the audit column's closed set, re-exported


@dataclass(frozen=True)
class Principal:
    """An authenticated identity: a token row (by its hash), the admin token, or the operator."""

    kind: ActorKind
    token_hash: str | None = None
    character: str | None = None
    #: the admin token's fingerprint (a hash prefix: which admin token, never the token)
    ref: str | None = None

    @property
    def label(self) -> str:
        """How the audit trail names it (``player:<character>`` for a player)."""
        if self.kind == ActorKind.PLAYER:
            return f"player:{self.character}"
        return self.kind.value


OPERATOR = Principal(ActorKind.OPERATOR, ref="cli")
_OUTSIDE_REQUESTS: ContextVar[Principal | None] = ContextVar("bansha_principal", default=None)


def admin_principal(token: str) -> Principal:
    """The admin token's identity: a fingerprint, so entries tell two admin tokens apart.

    >>> admin_principal("s3cret").ref
    'admin:1ec1c26b50d5d3c5'
    """
    digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
    return Principal(ActorKind.ADMIN, ref=f"admin:{digest[:16]}")


def authenticated(principal: Principal) -> None:
    """Record ``principal`` as the current request's identity."""
    if has_app_context():
        g.bansha_principal = principal


def current_principal() -> Principal | None:
    """The identity the current request (or :func:`acting_as` block) proved, if any."""
    if has_app_context():
        found = g.get("bansha_principal")
        if isinstance(found, Principal):
            return found
    return _OUTSIDE_REQUESTS.get()


@contextmanager
def acting_as(principal: Principal) -> Iterator[None]:
    """Attribute the audit entries written inside the block to ``principal`` (command line)."""
    token = _OUTSIDE_REQUESTS.set(principal)
    try:
        yield
    finally:
        _OUTSIDE_REQUESTS.reset(token)
