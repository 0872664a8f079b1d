"""Request and response schemas: one declaration both validates bodies and documents them.

A schema is a small tree of :class:`Field` objects; :meth:`Field.validate` checks decoded JSON and
raises :class:`SchemaError` naming the offending path, and :meth:`Field.json_schema` emits the JSON
Schema used in ``/openapi.json``. Because the same object does both, the OpenAPI document cannot
drift from what the service accepts.

>>> s = Obj({"name": Str(max_len=4), "n": Int(minimum=1)}, required=("name",))
>>> s.validate({"name": "饺子", "n": 2})
{'name': '饺子', 'n': 2}
>>> s.validate({"n": 0})
Traceback (most recent call last):
...
api.schema.SchemaError: $.name: 缺少必填字段
>>> s.json_schema()["required"]
['name']
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from game_rules.werewolf import EARLIEST_TIME, LATEST_TIME


class SchemaError(ValueError):
    """A JSON value that does not fit its schema; ``path`` is a JSONPath-like location."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


#: the JSON Schema pattern of text without NUL, the one character no database stores
NO_NUL = "^[^\\u0000]*$"


def _check_text(value: str, path: str) -> None:
    """Refuse text no database can store: unpaired surrogates and NUL characters."""
    if "\x00" in value:
        raise SchemaError(path, "不能包含 NUL 字符")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SchemaError(path, f"第{exc.start}个字符是不成对的代理码位") from None


def _check_key(key: str, path: str) -> None:
    """Refuse a field name that is no clean text, at the object's ``path``: the name itself
    cannot go into the path of the error, which could not be sent as UTF-8."""
    try:
        _check_text(key, path)
    except SchemaError as exc:
        raise SchemaError(path, f"字段名：{exc.message}") from None


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


@dataclass(frozen=True, kw_only=True)
class Field:
    """Base schema node."""

    description: str = ""
    nullable: bool = False

    def validate(self, value: Any, path: str = "$") -> Any:
        """Return ``value`` (possibly converted) or raise :class:`SchemaError`."""
        if value is None:
            if self.nullable:
                return None
            raise SchemaError(path, "不能为 null")
        return self._check(value, path)

    def _check(self, value: Any, path: str) -> Any:
        return value

    def json_schema(self) -> dict[str, Any]:
        """This node as JSON Schema (OpenAPI 3.1 dialect)."""
        schema = self._schema()
        if self.description:
            schema["description"] = self.description
        if self.nullable:
            kind = schema.get("type")
            if isinstance(kind, str):
                schema["type"] = [kind, "null"]
            else:
                schema = {"anyOf": [schema, {"type": "null"}]}
        return schema

    def _schema(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class Any_(Field):
    """Any JSON value, null included."""

    def validate(self, value: Any, path: str = "$") -> Any:
        """Accept anything."""
        return value


@dataclass(frozen=True)
class Str(Field):
    """A string, optionally bounded and/or from a closed set."""

    min_len: int = 0
    max_len: int | None = None
    enum: tuple[str, ...] = ()
    #: a regular expression the whole value must match (in the dialect Python and JSON Schema share)
    pattern: str = ""
    #: what a value that does not match ``pattern`` is told
    pattern_text: str = "格式不符"

    def _check(self, value: Any, path: str) -> Any:
        if not isinstance(value, str):
            raise SchemaError(path, f"应为字符串，实际为 {_type_name(value)}")
        _check_text(value, path)
        if len(value) < self.min_len:
            raise SchemaError(path, f"至少{self.min_len}个字符")
        if self.max_len is not None and len(value) > self.max_len:
            raise SchemaError(path, f"最多{self.max_len}个字符")
        if self.enum and value not in self.enum:
            shown = value if len(value) <= 32 else value[:32] + "…"
            raise SchemaError(path, f"不能是「{shown}」，只能是以下之一：{', '.join(self.enum)}")
        if self.pattern and re.fullmatch(self.pattern, value) is None:
            raise SchemaError(path, self.pattern_text)
        return value

    def _schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "string"}
        if self.min_len:
            out["minLength"] = self.min_len
        if self.max_len is not None:
            out["maxLength"] = self.max_len
        if self.enum:
            out["enum"] = list(self.enum)
        # JSON Schema patterns are not anchored; without one of its own, a string still cannot
        # hold NUL (see _check_text)
        out["pattern"] = f"^(?:{self.pattern})$" if self.pattern else NO_NUL
        return out


# the times a request may name are the game core's: near year 1 or 9999, converting to UTC,
# storing, or the core's day arithmetic (a day before the close, a second after a ballot) runs
# out of years
@dataclass(frozen=True)
class DateTimeStr(Field):
    """An ISO 8601 timestamp with a UTC offset (``2024-05-01T20:00:00+08:00``), as datetime,
    from 1970 up to (not including) the year 9999, UTC."""

    def _check(self, value: Any, path: str) -> Any:
        if not isinstance(value, str):
            raise SchemaError(path, f"应为 ISO 8601 时间字符串，实际为 {_type_name(value)}")
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise SchemaError(path, f"不是 ISO 8601 时间：{value!r}") from exc
        if parsed.tzinfo is None:
            raise SchemaError(path, "时间须带时区（如 +08:00 或 Z）")
        # aware comparisons subtract offsets without building a date, so they cannot overflow
        if not EARLIEST_TIME <= parsed < LATEST_TIME:
            raise SchemaError(path, "时间须在 1970-01-01 至 9998-12-31（UTC）之间")
        return parsed

    def _schema(self) -> dict[str, Any]:
        # The years 1970 to 9998 as a pattern can say them; the exact bounds are in UTC, so a
        # time in the first or last hours of the range may still be refused for its offset.
        return {
            "type": "string",
            "format": "date-time",
            "pattern": "^(19[7-9][0-9]|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-",
        }


@dataclass(frozen=True)
class Int(Field):
    """An integer (booleans are not integers here)."""

    minimum: int | None = None
    maximum: int | None = None

    def _check(self, value: Any, path: str) -> Any:
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # JSON Schema: 477.0 is the integer 477
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(path, f"应为整数，实际为 {_type_name(value)}")
        if self.minimum is not None and value < self.minimum:
            raise SchemaError(path, f"不能小于{self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise SchemaError(path, f"不能大于{self.maximum}")
        return value

    def _schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "integer"}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


@dataclass(frozen=True)
class Num(Field):
    """A number."""

    def _check(self, value: Any, path: str) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SchemaError(path, f"应为数字，实际为 {_type_name(value)}")
        return value

    def _schema(self) -> dict[str, Any]:
        return {"type": "number"}


@dataclass(frozen=True)
class Bool(Field):
    """A boolean."""

    def _check(self, value: Any, path: str) -> Any:
        if not isinstance(value, bool):
            raise SchemaError(path, f"应为布尔值，实际为 {_type_name(value)}")
        return value

    def _schema(self) -> dict[str, Any]:
        return {"type": "boolean"}


@dataclass(frozen=True)
class Arr(Field):
    """An array of ``items``."""

    items: Field = field(default_factory=Any_)
    min_items: int = 0
    max_items: int | None = None

    def _check(self, value: Any, path: str) -> Any:
        if not isinstance(value, list):
            raise SchemaError(path, f"应为数组，实际为 {_type_name(value)}")
        if len(value) < self.min_items:
            raise SchemaError(path, f"至少{self.min_items}项")
        if self.max_items is not None and len(value) > self.max_items:
            raise SchemaError(path, f"最多{self.max_items}项")
        return [self.items.validate(v, f"{path}[{i}]") for i, v in enumerate(value)]

    def _schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "array", "items": self.items.json_schema()}
        if self.min_items:
            out["minItems"] = self.min_items
        if self.max_items is not None:
            out["maxItems"] = self.max_items
        return out


@dataclass(frozen=True)
class Map(Field):
    """An object with arbitrary keys whose values follow ``values``."""

    values: Field = field(default_factory=Any_)

    def _check(self, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise SchemaError(path, f"应为对象，实际为 {_type_name(value)}")
        for key in value:
            _check_key(key, path)
        return {k: self.values.validate(v, f"{path}.{k}") for k, v in value.items()}

    def _schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "propertyNames": {"pattern": NO_NUL},
            "additionalProperties": self.values.json_schema(),
        }


@dataclass(frozen=True)
class Obj(Field):
    """An object with known ``props``; unknown keys are rejected so typos never pass silently."""

    props: Mapping[str, Field] = field(default_factory=dict)
    required: Sequence[str] = ()
    name: str = ""

    def _check(self, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise SchemaError(path, f"应为对象，实际为 {_type_name(value)}")
        for key in self.required:
            if key not in value:
                raise SchemaError(f"{path}.{key}", "缺少必填字段")
        out: dict[str, Any] = {}
        for key, item in value.items():
            node = self.props.get(key)
            if node is None:
                _check_key(key, path)
                raise SchemaError(f"{path}.{key}", "未知字段")
            out[key] = node.validate(item, f"{path}.{key}")
        return out

    def _schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "object",
            "properties": {k: v.json_schema() for k, v in self.props.items()},
            "additionalProperties": False,
        }
        if self.required:
            out["required"] = list(self.required)
        return out


@dataclass(frozen=True)
class OneOf(Field):
    """One of several alternatives.

    With ``tag`` (a field name), objects are routed by it: to the alternative whose ``tag`` enum
    holds the value, or — for alternatives without an enum — by whether the field is present. The
    caller then gets that alternative's own error. Without a tag, the first alternative that
    validates wins and the error lists them all.
    """

    options: Sequence[Field] = ()
    tag: str = ""

    def _route(self, value: Any) -> Field | None:
        if not self.tag or not isinstance(value, dict):
            return None
        chosen = []
        for option in self.options:
            props = option.props if isinstance(option, Obj) else {}
            prop = props.get(self.tag)
            if isinstance(prop, Str) and prop.enum:
                if value.get(self.tag) in prop.enum:
                    chosen.append(option)
            elif (prop is not None) == (self.tag in value):
                chosen.append(option)
        return chosen[0] if len(chosen) == 1 else None

    def _by_type(self, value: Any) -> Field | None:
        """The one alternative of the value's JSON type (a name, or an object), if only one is."""
        kinds = {Str: str, Obj: dict, Map: dict, Arr: list}
        fitting = [o for o in self.options if isinstance(value, kinds.get(type(o), object))]
        return fitting[0] if len(fitting) == 1 else None

    def _tag_values(self) -> list[str]:
        out: list[str] = []
        for option in self.options:
            prop = option.props.get(self.tag) if isinstance(option, Obj) else None
            if isinstance(prop, Str):
                out += prop.enum
        return out

    def _check(self, value: Any, path: str) -> Any:
        routed = self._route(value) or self._by_type(value)
        if routed is not None:
            return routed.validate(value, path)
        tags = self._tag_values()
        if tags and isinstance(value, dict):
            raise SchemaError(f"{path}.{self.tag}", f"只能是以下之一：{', '.join(tags)}")
        errors = []
        for option in self.options:
            try:
                return option.validate(value, path)
            except SchemaError as exc:
                errors.append(str(exc))
        raise SchemaError(path, "不符合任何一种格式：" + " | ".join(errors))

    def _schema(self) -> dict[str, Any]:
        return {"oneOf": [o.json_schema() for o in self.options]}
