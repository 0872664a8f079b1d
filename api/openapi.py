"""Endpoint declarations and the OpenAPI 3.1 document generated from them.

Every JSON endpoint is declared with :func:`endpoint`: method, path, who may call it, the request
schema (which also validates the body) and the response schema. ``/openapi.json`` is built from
these declarations alone, so it describes exactly what the service accepts and returns: the
operations here (who may call, the error statuses every endpoint answers), the schemas by
pydantic (:func:`api.schema.json_schemas`, the named objects under ``components/schemas``).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, current_app, request

from api.errors import BadRequest
from api.schema import Schema, SchemaError, json_schemas

ERROR_TEXT = {
    400: "Malformed JSON or a body that does not fit the schema (nothing changed)",
    401: "Missing, unknown or revoked token (code `token_revoked` for a revoked one; for "
    "creating games, the admin token when one is set)",
    403: "Token may not do this (other game, or not a director token)",
    404: "Unknown game, suggestion or character",
    409: "Illegal in the current state; `rule` names the rule (nothing changed)",
    413: "Body or batch over the documented limit (nothing changed)",
    414: "Request line (path and query) over MAX_URL_LENGTH (nothing changed)",
    415: "Body not `application/json` (nothing changed)",
    422: "Idempotency-Key already used with a different body; `rule` is "
    "`idempotency_key_reused` (nothing changed)",
    429: "Rate limit of this client reached (posts per token, new games or other writes per "
    "client); `Retry-After` says when to try again (nothing changed)",
}

AUTH_TEXT = {
    "public": "no token needed",
    "player": "a player token (sees only its own character)",
    "director": "the game's director token",
    "admin": "the service's admin token (BANSHA_ADMIN_TOKEN)",
}


@dataclass(frozen=True)
class Endpoint:
    """One declared endpoint."""

    method: str
    rule: str
    summary: str
    auth: tuple[str, ...]
    tag: str
    request: Schema | None = None
    response: Schema | None = None
    status: int = 200
    errors: tuple[int, ...] = ()
    description: str = ""
    query: dict[str, str | Schema] = field(default_factory=dict)
    headers: dict[str, str | Schema] = field(default_factory=dict)
    response_headers: dict[str, str] = field(default_factory=dict)

    @property
    def path(self) -> str:
        """The OpenAPI form of the Flask rule (``<game_id>`` -> ``{game_id}``)."""
        return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", self.rule)


ENDPOINTS: list[Endpoint] = []
#: (rule, method) -> its declaration, the first one made (every request looks its own up)
_DECLARED: dict[tuple[str, str], Endpoint] = {}


def declared(rule: str, method: str) -> Endpoint | None:
    """The declared endpoint for a Flask ``rule`` and ``method`` (None: not a JSON endpoint)."""
    return _DECLARED.get((rule, method))


def read_json_body() -> Any:
    """Decode the request body as JSON, or raise :class:`BadRequest` saying why not."""
    raw = request.get_data(cache=True)
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if request.content_length is None and limit and len(raw) >= limit:
        # A body without Content-Length (chunked) is cut off at the limit without a word;
        # reading on past it makes Werkzeug raise the 413 (api.errors words it).
        request.stream.read(1)
    if not raw:
        raise BadRequest("请求正文为空，应为 JSON")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise BadRequest(f"请求正文不是 UTF-8 编码：{exc.reason}") from exc
    except json.JSONDecodeError as exc:
        raise BadRequest(f"JSON 格式错误（第{exc.lineno}行第{exc.colno}列）：{exc.msg}") from exc
    except RecursionError:
        raise BadRequest("JSON 嵌套层数过多") from None
    except ValueError as exc:
        # the one ValueError json.loads raises besides the two above: an integer literal longer
        # than Python converts (sys.get_int_max_str_digits(), 4,300 digits by default)
        raise BadRequest("JSON 格式错误：数字位数过多") from exc


def read_query(name: str, schema: Schema, default: str | None = None) -> Any:
    """The query parameter ``name`` validated by ``schema`` (the one the endpoint declares), or
    ``default`` when absent; :class:`BadRequest` naming the parameter when it does not fit.
    Call it after authentication: a stranger learns nothing from a 400."""
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        return schema.validate(raw, name)
    except SchemaError as exc:
        raise BadRequest(f"{name} {exc.message}", path=name) from exc


def endpoint(
    bp: Blueprint,
    method: str,
    rule: str,
    *,
    summary: str,
    auth: tuple[str, ...],
    tag: str,
    request_schema: Schema | None = None,
    response: Schema | None = None,
    status: int = 200,
    errors: tuple[int, ...] = (),
    description: str = "",
    query: dict[str, str | Schema] | None = None,
    headers: dict[str, str | Schema] | None = None,
    response_headers: dict[str, str] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a view on ``bp`` and declare it for the OpenAPI document.

    With ``request_schema`` the decoded, validated body is passed to the view as ``body``.
    ``query`` and ``headers`` document optional request parameters (name -> description, or a
    :class:`~api.schema.Schema` for a parameter the view validates), ``response_headers`` the
    headers a success response may carry. Every write endpoint also answers 429 (rate limits),
    and every endpoint with a body 413 and 415 (:mod:`api.guard`); the document says so without
    being told.
    """
    # Repeated on purpose: the endpoint's declaration passed on field by field to its record.
    spec = Endpoint(
        method=method,
        rule=rule,
        summary=summary,
        auth=auth,
        tag=tag,
        request=request_schema,
        response=response,
        status=status,
        errors=errors,
        description=description,
        query=dict(query or {}),
        headers=dict(headers or {}),
        response_headers=dict(response_headers or {}),
    )
    ENDPOINTS.append(spec)
    _DECLARED.setdefault((rule, method), spec)

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(view)
        def wrapper(**kwargs: Any) -> Any:
            if request_schema is not None:
                try:
                    kwargs["body"] = request_schema.validate(read_json_body())
                except SchemaError as exc:
                    raise BadRequest(exc.message, path=exc.path) from exc
            return view(**kwargs)

        bp.add_url_rule(rule, endpoint=view.__name__, view_func=wrapper, methods=[method])
        return wrapper

    return decorate


def _parameter(
    name: str, where: str, given: str | Schema, schemas: dict[int, dict[str, Any]]
) -> dict[str, Any]:
    """One optional query or header parameter of the document."""
    if isinstance(given, Schema):
        schema = dict(schemas[id(given)])
        text = schema.pop("description", "")
    else:
        schema, text = {"type": "string"}, given
    return {"name": name, "in": where, "required": False, "schema": schema, "description": text}


def openapi_document(max_content_length: int | None = None) -> dict[str, Any]:
    """The OpenAPI 3.1 document for every declared endpoint; the schemas are pydantic's."""
    declared = [
        schema
        for spec in ENDPOINTS
        for schema in (
            spec.request,
            spec.response,
            *spec.query.values(),
            *spec.headers.values(),
        )
        if isinstance(schema, Schema)
    ]
    schemas, definitions = json_schemas(declared)
    paths: dict[str, dict[str, Any]] = {}
    for spec in ENDPOINTS:
        operation: dict[str, Any] = {
            "summary": spec.summary,
            "tags": [spec.tag],
            "operationId": f"{spec.method.lower()}_{re.sub(r'[^a-z0-9]+', '_', spec.path.lower())}",
            "description": (spec.description + "\n\n" if spec.description else "")
            + "Who may call: "
            + "; ".join(AUTH_TEXT[a] for a in spec.auth)
            + ".",
            "responses": {},
        }
        params = [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
            for name in re.findall(r"{(\w+)}", spec.path)
        ]
        params += [
            _parameter(name, where, given, schemas)
            for where, optional in (("query", spec.query), ("header", spec.headers))
            for name, given in optional.items()
        ]
        if params:
            operation["parameters"] = params
        if spec.auth == ("public",):
            operation["security"] = []
        elif "public" in spec.auth:
            operation["security"] = [{}, {"bearer": []}]
        else:
            operation["security"] = [{"bearer": []}]
        if spec.request is not None:
            operation["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": schemas[id(spec.request)]}},
            }
        ok: dict[str, Any] = {"description": "Success"}
        if spec.response is not None:
            ok["content"] = {"application/json": {"schema": schemas[id(spec.response)]}}
        if spec.response_headers:
            ok["headers"] = {
                name: {"description": text, "schema": {"type": "string"}}
                for name, text in spec.response_headers.items()
            }
        operation["responses"][str(spec.status)] = ok
        errors = set(spec.errors) | {414}
        if spec.method != "GET":
            errors.add(429)
        if spec.request is not None:
            errors |= {413, 415}
        for status in sorted(errors):
            text = ERROR_TEXT[status]
            if status == 413 and max_content_length:
                text += f" (limit: {max_content_length} bytes)"
            response: dict[str, Any] = {
                "description": text,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            }
            if status == 429:
                response["headers"] = {
                    "Retry-After": {
                        "description": "seconds until the client's window starts again",
                        "schema": {"type": "integer", "minimum": 1},
                    }
                }
            operation["responses"][str(status)] = response
        paths.setdefault(spec.path, {})[spec.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Bansha Referee (版杀裁判)",
            "version": "0.1.0",
            "description": "Screens forum posts of 版杀 games, suggests cards, keeps each player's "
            "ledger and ejects red-carded characters from the running game. See docs/api.md.",
        },
        "paths": dict(sorted(paths.items())),
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "Director or player token, only in the Authorization header.",
                }
            },
            "schemas": {
                **definitions,
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {
                        "error": {
                            "type": "object",
                            "required": ["code", "message"],
                            "properties": {
                                "code": {"type": "string"},
                                "message": {"type": "string"},
                                "rule": {"type": "string"},
                                "path": {"type": "string"},
                                "retry_after": {"type": "integer", "minimum": 1},
                            },
                        }
                    },
                },
            },
        },
    }
