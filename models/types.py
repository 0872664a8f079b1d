"""Column types shared by the tables."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from sqlalchemy import CheckConstraint, DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive)."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> datetime | None:
        """Store as naive UTC; naive input is taken to be UTC already."""
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"expected datetime, got {type(value).__name__}")
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        """Return an aware UTC datetime."""
        if value is None:
            return None
        assert isinstance(value, datetime)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def utcnow() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


def one_of(column: str, members: Iterable[Enum]) -> CheckConstraint:
    """``CHECK (column IN (...))`` over an enum's values: a closed set stored as its string keys.

    The constraint is named ``ck_<table>_<column>`` (``models.base.NAMING_CONVENTION``) and keeps
    ``(column, values)`` in ``info["one_of"]`` for migrations and tests. A NULL passes (SQL's
    three-valued ``IN``), so a nullable column keeps its NULLs.

    >>> from game_rules.enums import Result
    >>> str(one_of("result", Result).sqltext)
    "result IN ('win', 'lose', 'undecided')"
    """
    values = tuple(str(m.value) for m in members)
    quoted = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
    check = CheckConstraint(f"{column} IN ({quoted})", name=column)
    check.info["one_of"] = (column, values)
    return check
