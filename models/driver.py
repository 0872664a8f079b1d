"""Statements of the hottest path run straight on SQLite's driver cursor.

A post costs two short write transactions of one or two statements each. Through SQLAlchemy's
``Connection.execute`` every statement pays for an execution context (cache key, parameter
processing, result metadata): about 30 µs for a one-row upsert whose own run in SQLite takes a
few. :class:`Prepared` pays that once: the Core statement is compiled once per dialect, each bind
parameter keeps the type's own bind processor (so a stored value is byte for byte what
``execute`` would have stored), and :meth:`Prepared.run` hands the positional values to the
driver's cursor of the connection's current transaction.

What stays the same: the statement text (compiled from the same Core statement), the
transaction it runs in, the engine's ``before_cursor_execute`` / ``after_cursor_execute``
listeners (they are told of every statement, as they are by ``execute``; that is how the tests
see the post path's statements) and the errors (driver errors are wrapped in SQLAlchemy's
``DBAPIError`` subclasses, as ``execute`` wraps them). Not supported: statements with expanding
(``IN``) parameters, and engines with ``echo`` (their log would miss these statements; such an
engine takes ``execute``'s path).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from sqlalchemy import Connection, Engine, exc
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.expression import Executable

__all__ = ["Prepared", "announce", "run_driver_sql"]

Processor = Callable[[Any], Any] | None


class _Compiled:
    """One statement compiled for one dialect: the SQL and, per position, name and processor."""

    __slots__ = ("processors", "sql")

    def __init__(self, statement: Executable, dialect: Dialect, keys: Sequence[str]) -> None:
        clause = cast(ClauseElement, statement)
        compiled = cast(
            SQLCompiler, clause.compile(dialect=dialect, column_keys=list(keys) or None)
        )
        names = compiled.positiontup
        if names is None or compiled.literal_execute_params or compiled.post_compile_params:
            raise ValueError("Prepared takes positional statements without expanding parameters")
        if compiled.insert_prefetch or compiled.update_prefetch:
            # a column default left to the execution context: name the column in ``keys``
            raise ValueError("Prepared needs every defaulted column in its parameters")
        self.sql: str = compiled.string
        self.processors: tuple[tuple[str, Processor], ...] = tuple(
            # the dialect's form of the type, as execute takes it (SQLite's DATETIME format)
            (name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
            for name in names
        )

    def values(self, params: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(
            params[name] if process is None else process(params[name])
            for name, process in self.processors
        )


class Prepared:
    """A Core statement run on the driver's cursor (see the module); SQLite only.

    ``keys``: for an ``INSERT`` without ``.values()``, the columns its parameters name (as
    ``execute`` would take them from the first parameter set).
    """

    def __init__(self, statement: Executable, keys: Sequence[str] = ()) -> None:
        self.statement = statement
        self.keys = tuple(keys)
        # one compilation per dialect instance (an engine's); dropped with the engine
        self._compiled: weakref.WeakKeyDictionary[Dialect, _Compiled] = weakref.WeakKeyDictionary()

    def compiled(self, dialect: Dialect) -> _Compiled:
        """The statement compiled for ``dialect`` (once)."""
        found = self._compiled.get(dialect)
        if found is None:
            found = self._compiled[dialect] = _Compiled(self.statement, dialect, self.keys)
        return found

    def run(self, connection: Connection, params: Mapping[str, Any]) -> Any:
        """Run with ``params`` in ``connection``'s transaction; returns the driver's cursor, to
        iterate or ``fetchone()``. Another backend, or an engine with ``echo``, takes
        ``connection.execute`` (whose result iterates and fetches the same way)."""
        if connection.engine.echo or connection.dialect.name != "sqlite":
            return connection.execute(self.statement, dict(params))
        compiled = self.compiled(connection.dialect)
        return run_driver_sql(connection, compiled.sql, compiled.values(params))


def run_driver_sql(connection: Connection, sql: str, values: tuple[Any, ...] = ()) -> Any:
    """Run ``sql`` on the driver's cursor of ``connection``, telling the engine's cursor
    listeners as ``execute`` does; returns the cursor (with ``echo``, the result of
    ``exec_driver_sql``, which logs the statement)."""
    if connection.engine.echo:
        return connection.exec_driver_sql(sql, values)
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    sql, parameters = announce(connection.engine, cursor, sql, values, connection)
    try:
        cursor.execute(sql, parameters)
    except connection.dialect.loaded_dbapi.Error as error:
        raise exc.DBAPIError.instance(
            sql, parameters, error, connection.dialect.loaded_dbapi.Error
        ) from error
    dispatch = connection.engine.dispatch
    if dispatch.after_cursor_execute:
        for after in dispatch.after_cursor_execute:
            after(connection, cursor, sql, parameters, None, False)
    return cursor


def announce(
    engine: Engine,
    cursor: Any,
    sql: str,
    parameters: Any = (),
    connection: Connection | None = None,
) -> tuple[str, Any]:
    """Tell ``engine``'s ``before_cursor_execute`` listeners of ``sql``; returns the statement
    and parameters to run (a listener with ``retval=True`` may rewrite them).

    ``connection`` is None where the statement runs below any ``Connection`` (the dialect's
    BEGIN, :func:`models.database.make_engine`). Listeners on a single ``Connection`` are not
    told: the service registers none.
    """
    dispatch = engine.dispatch
    if dispatch.before_cursor_execute:
        for before in dispatch.before_cursor_execute:
            sql, parameters = before(connection, cursor, sql, parameters, None, False)
    return sql, parameters
