"""Request and response schemas through pydantic: one declaration validates and documents.

A schema is a pydantic type — mostly a ``TypedDict`` declared with :func:`shape` (strict types,
unknown keys refused), so a validated body is the plain ``dict`` the views read, holding only the
keys the client sent. :class:`Schema` validates decoded JSON with it and turns pydantic's first
error into :class:`SchemaError`: a JSONPath-like ``path`` and a Chinese ``message``;
``/openapi.json`` takes each schema's JSON Schema from pydantic (:func:`json_schemas`), so the
document cannot drift from what the service accepts.

>>> from typing_extensions import TypedDict
>>> @shape
... class Dish(TypedDict, total=False):
...     name: Required[Annotated[Text, Field(max_length=4)]]
...     n: Annotated[int, Field(ge=1), INTEGRAL]
>>> s = Schema(Dish)
>>> s.validate({"name": "饺子", "n": 2})
{'name': '饺子', 'n': 2}
>>> s.validate({"n": 0})
Traceback (most recent call last):
...
api.schema.SchemaError: $.name: 缺少必填字段
>>> s.validate({"name": "饺子", "n": 0})
Traceback (most recent call last):
...
api.schema.SchemaError: $.n: 不能小于1
>>> s.validate({"name": "饺子", "size": 1})
Traceback (most recent call last):
...
api.schema.SchemaError: $.size: 未知字段
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Annotated, Any, Required, TypeVar

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PlainValidator,
    Tag,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    with_config,
)
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from game_rules.werewolf import EARLIEST_TIME, LATEST_TIME

__all__ = [
    "INTEGRAL",
    "NO_NUL",
    "Annotated",
    "Field",
    "Int",
    "Key",
    "Required",
    "Schema",
    "SchemaError",
    "Text",
    "Time",
    "json_schemas",
    "one_of",
    "shape",
]

T = TypeVar("T")


class SchemaError(ValueError):
    """A JSON value that does not fit its schema; ``path`` is a JSONPath-like location."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


#: the JSON Schema pattern of text without NUL, the one character no database stores
NO_NUL = "^[^\\u0000]*$"

#: strict types, and unknown keys refused so that typos never pass silently
STRICT = ConfigDict(extra="forbid", strict=True)


def shape(cls: type[T]) -> type[T]:
    """Declare a ``TypedDict`` as a schema: strict types, unknown keys refused."""
    return with_config(STRICT)(cls)


def _integral(value: Any) -> Any:
    """JSON Schema's integers: 477.0 is the integer 477."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _parse_time(value: Any) -> datetime:
    """An ISO 8601 timestamp with a UTC offset, as an aware datetime inside the core's years."""
    if not isinstance(value, str):
        raise PydanticCustomError(
            "time", "应为 ISO 8601 时间字符串，实际为 {kind}", {"kind": _type_name(value)}
        )
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise PydanticCustomError(
            "time", "不是 ISO 8601 时间：{shown}", {"shown": repr(value)}
        ) from None
    if parsed.tzinfo is None:
        raise PydanticCustomError("time", "时间须带时区（如 +08:00 或 Z）")
    # aware comparisons subtract offsets without building a date, so they cannot overflow
    if not EARLIEST_TIME <= parsed < LATEST_TIME:
        raise PydanticCustomError("time", "时间须在 1970-01-01 至 9998-12-31（UTC）之间")
    return parsed


#: text as every request field holds it (a NUL is refused before pydantic sees the value)
Text = Annotated[str, Field(pattern=NO_NUL)]
#: an object key a map may hold
Key = Text
#: an integral float is an integer (JSON Schema's reading); a boolean is not. It comes after an
#: integer's bounds (``Annotated[int, Field(ge=1), INTEGRAL]``): bounds placed after a validator
#: no longer reach the JSON Schema as ``minimum`` and ``maximum``
INTEGRAL = BeforeValidator(_integral)
#: an integer
Int = Annotated[int, INTEGRAL]
# the times a request may name are the game core's: near year 1 or 9999, converting to UTC,
# storing, or the core's day arithmetic (a day before the close, a second after a ballot) runs
# out of years. The years 1970 to 9998 as a pattern can say them; the exact bounds are in UTC,
# so a time in the first or last hours of the range may still be refused for its offset.
Time = Annotated[
    datetime,
    PlainValidator(_parse_time),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "pattern": "^(19[7-9][0-9]|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-",
        }
    ),
]

#: what a value that does not match a field's pattern is told, by pattern (default 格式不符)
PATTERN_TEXT: dict[str, str] = {}


#: the names of union members, which pydantic puts in an error's location (a NUL keeps them
#: apart from any field name a path may show)
_TAGS: set[str] = set()


def one_of(
    choose: Callable[[Any], str | None],
    options: dict[str, Any],
    *,
    tag: str = "",
    allowed: tuple[str, ...] = (),
) -> Any:
    """A union whose member ``choose(value)`` names (pydantic's callable discriminator).

    ``options`` maps a member's name to its type. A value the chooser cannot place (None) is
    told, with ``tag`` (a field name), which values ``allowed`` that field may take, and
    otherwise which JSON types (``allowed``, in words) fit.
    """
    _TAGS.update("\x00" + name for name in options)
    members = [Annotated[kind, Tag("\x00" + name)] for name, kind in options.items()]
    union: Any = members[0]
    for member in members[1:]:
        union = union | member

    def discriminate(value: Any) -> str | None:
        chosen = choose(value)
        return None if chosen is None else "\x00" + chosen

    return Annotated[
        union,
        Discriminator(
            discriminate,
            custom_error_type="one_of",
            custom_error_message="no alternative",
            custom_error_context={"tag": tag, "allowed": ", ".join(allowed)},
        ),
    ]


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _text_problem(value: str) -> str | None:
    """Why no database can store ``value`` (a NUL, an unpaired surrogate), or None."""
    if "\x00" in value:
        return "不能包含 NUL 字符"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"第{exc.start}个字符是不成对的代理码位"
    return None


_TYPE_WORDS = {
    "string_type": "字符串",
    "int_type": "整数",
    "int_from_float": "整数",
    "bool_type": "布尔值",
    "float_type": "数字",
    "list_type": "数组",
    "dict_type": "对象",
    "model_type": "对象",
}
_BOUNDS = {
    "string_too_short": "至少{min_length}个字符",
    "string_too_long": "最多{max_length}个字符",
    "too_short": "至少{min_length}项",
    "too_long": "最多{max_length}项",
    "greater_than_equal": "不能小于{ge}",
    "less_than_equal": "不能大于{le}",
}


def _message(error: Any, path: str) -> tuple[str, str]:
    """The (path, Chinese message) of one pydantic error about the value at ``path``."""
    kind, given, ctx = error["type"], error.get("input"), error.get("ctx") or {}
    problem = _text_problem(given) if isinstance(given, str) else None
    if problem and kind not in _TYPE_WORDS:  # text, whatever the field expected of it
        return path, problem
    if kind == "missing":
        return path, "缺少必填字段"
    if kind == "extra_forbidden":
        return path, "未知字段"
    if kind in _TYPE_WORDS or (kind == "literal_error" and not isinstance(given, str)):
        if given is None:
            return path, "不能为 null"
        return path, f"应为{_TYPE_WORDS.get(kind, '字符串')}，实际为 {_type_name(given)}"
    if kind in _BOUNDS:
        return path, _BOUNDS[kind].format(**ctx)
    if kind == "literal_error":
        values = ", ".join(re.findall(r"'([^']*)'", str(ctx.get("expected", ""))))
        shown = given if len(given) <= 32 else given[:32] + "…"
        return path, f"不能是「{shown}」，只能是以下之一：{values}"
    if kind == "string_pattern_mismatch":
        return path, PATTERN_TEXT.get(str(ctx.get("pattern")), "格式不符")
    if kind == "one_of":
        if ctx.get("tag") and isinstance(given, dict):
            return f"{path}.{ctx['tag']}", f"只能是以下之一：{ctx['allowed']}"
        kinds = "对象" if ctx.get("tag") else str(ctx["allowed"]).replace(", ", "或")
        return path, f"应为{kinds}，实际为 {_type_name(given)}"
    if kind == "time":  # _parse_time's own messages
        return path, str(error["msg"])
    return path, f"格式不符（{error['msg']}）"


def _located(error: Any, root: str, value: Any) -> tuple[str, str]:
    """The (path, Chinese message) of pydantic's ``error`` about ``value`` validated at ``root``.

    A field *name* that is no clean text (a NUL, an unpaired surrogate) is told at its object:
    the name itself could not be sent back as UTF-8.
    """
    raw = list(error["loc"])
    loc = [part for part in raw if part not in _TAGS]
    if raw and raw[-1] == "[key]":  # a map's key
        where = _path(root, [part for part in raw[:-2] if part not in _TAGS])
        problem = _text_problem(error["input"]) if isinstance(error["input"], str) else None
        return (where, f"字段名：{problem}") if problem else _message(error, where)
    if error["type"] == "extra_forbidden":
        key, parent = raw[-1], [part for part in raw[:-1] if part not in _TAGS]
        problem = _text_problem(key) if isinstance(key, str) else None
        if problem:
            return _path(root, parent), f"字段名：{problem}"
        return _path(root, [*parent, key]), "未知字段"
    if error["type"] == "string_unicode" and isinstance(_at(value, loc), dict):
        # pydantic could not read a field name of this object (the input is the name)
        return _path(root, loc), f"字段名：{_text_problem(error['input'])}"
    return _message(error, _path(root, loc))


def _at(value: Any, loc: list[Any]) -> Any:
    """The part of ``value`` at ``loc`` (None when it is not there)."""
    for part in loc:
        inside = isinstance(value, dict) and part in value
        if isinstance(value, list) and isinstance(part, int):
            inside = 0 <= part < len(value)
        if not inside:
            return None
        value = value[part]
    return value


def _path(root: str, loc: Iterable[Any]) -> str:
    """``loc`` below ``root`` as a JSONPath-like string."""
    return root + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)


class Schema:
    """A pydantic type that validates decoded JSON and raises :class:`SchemaError`."""

    def __init__(self, kind: Any, description: str = "") -> None:
        self.kind = kind
        self.adapter: TypeAdapter[Any] = TypeAdapter(kind)
        self.description = description

    def validate(self, value: Any, path: str = "$") -> Any:
        """Return ``value`` validated (times parsed), or raise the first error."""
        try:
            return self.adapter.validate_python(value)
        except ValidationError as exc:
            where, message = _located(exc.errors(include_url=False)[0], path, value)
            raise SchemaError(where, message) from None


class _Document(GenerateJsonSchema):
    """pydantic's JSON Schema (2020-12, OpenAPI 3.1's dialect), without generated titles, and a
    map's key rule as ``propertyNames`` (a key that breaks it is refused, not left free)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def dict_schema(self, schema: core_schema.DictSchema) -> JsonSchemaValue:
        out = super().dict_schema(schema)
        patterns = out.pop("patternProperties", None)
        if patterns:
            ((pattern, values),) = patterns.items()
            out["propertyNames"] = {"pattern": pattern}
            out["additionalProperties"] = values
        return out

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        out = super().typed_dict_schema(schema)
        out.pop("title", None)
        return out


def json_schemas(
    schemas: Iterable[Schema], ref_prefix: str = "#/components/schemas/"
) -> tuple[dict[int, dict[str, Any]], dict[str, Any]]:
    """Each schema's JSON Schema (keyed by ``id(schema)``) and the named definitions they share."""
    unique = {id(s): s for s in schemas}
    by_key, defs = TypeAdapter.json_schemas(
        [(key, "validation", s.adapter) for key, s in unique.items()],
        ref_template=ref_prefix + "{model}",
        schema_generator=_Document,
    )
    out: dict[int, dict[str, Any]] = {}
    for (key, _), schema in by_key.items():
        schema = dict(schema)
        if unique[key].description:
            schema["description"] = unique[key].description
        out[key] = schema
    return out, dict(defs.get("$defs", {}))
