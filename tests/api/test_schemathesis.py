"""schemathesis against ``/openapi.json``: generated requests, checked against the document.

Every declared operation gets a bounded number of requests that fit the document (positive) and
that break it (negative), sent with a live game's id and its director token so that they reach
the views. Every built-in check runs: no 500, statuses, content types, headers and bodies as
documented, and schema-breaking requests refused — which fails when the document declares a
constraint the service does not enforce.

One built-in check is replaced: "schema-valid request rejected" is kept for everything the
document can say, and a 400 on a schema-valid request is accepted only where no static document
can say it (:func:`refused_only_for_the_game`): a name that is not one of this game's characters,
two characters with one name, or a rule of the deal (the error's ``rule``, e.g. ``player_count``);
a character name the game core refuses (invisible characters, NFKC collisions, vote keywords);
and a 422 for an ``Idempotency-Key`` generated twice with two different bodies.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

import api.cards
import api.games
import api.play
import api.posts
import api.suggestions
import api.tokens  # noqa: F401  (each declares its endpoints on import)
from api import create_app
from api.openapi import ENDPOINTS
from models.migrate import upgrade

MAX_EXAMPLES = 20
#: (method, path, mode): negative requests only where something is left to break (the game id
#: is fixed to the live game's)
OPERATIONS = [
    (spec.method, spec.path, mode)
    for spec in ENDPOINTS
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if mode is GenerationMode.POSITIVE
    or spec.request is not None
    or spec.query
    or spec.headers
    or "{sid}" in spec.path
]
M72 = [f"软件{i}" for i in range(1, 13)]
#: fields that must name one of the game's characters, and the roster (two players with one
#: name), which no static schema can check
#: the deal's rules, which hang on the chosen ruleset's data (its player count and roles); the
#: document does declare the set of rulesets, so ``unknown_ruleset`` is not among them
DEAL_RULES = frozenset({"player_count", "unknown_role", "role_count", "unknown_character"})
#: character names the game core refuses (game_rules/names.py): invisible characters by Unicode
#: category (Cf, Cc: no regex both JSON Schema and Python read can say it), two names equal after
#: NFKC and case folding, and vote keywords (which depend on the NFKC form too)
NAME_RULES = frozenset({"name_invisible", "name_collision", "name_keyword"})
GAME_NAMES = re.compile(
    r"\$(\.posts\[\d+\])?\.(author|character|actor|voter|target|roles)|\$\.players(\[\d+\])?"
)


def refused_only_for_the_game(ctx: Any, response: Any, case: Any) -> bool | None:
    """A schema-valid request is accepted unless its names are not the game's, or a game rule
    refuses it; anything else the service refuses must be declared in the document."""
    meta = case.meta
    if (
        meta is None
        or not meta.generation.mode.is_positive
        or response.status_code not in (400, 422)
    ):
        return positive_data_acceptance(ctx, response, case)
    error = response.json()["error"]
    if response.status_code == 422:
        # an Idempotency-Key generated twice with two bodies: the service's memory, not the shape
        if error.get("rule") == "idempotency_key_reused":
            return None
    elif error.get("rule") in DEAL_RULES | NAME_RULES or GAME_NAMES.fullmatch(
        error.get("path", "")
    ):
        return None
    raise AssertionError(f"schema-valid request refused: {error}")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, str, str]]:
    path = tmp_path_factory.mktemp("schemathesis") / "bansha.sqlite3"
    upgrade(f"sqlite:///{path}")
    unlimited = (10**9, 60)
    app = create_app(
        {
            "DATABASE_URL": f"sqlite:///{path}",
            "USE_CLASSIFIER": False,
            "RATE_LIMIT_POSTS": unlimited,
            "RATE_LIMIT_GAMES": unlimited,
            "RATE_LIMIT_WRITES": unlimited,
        }
    )
    created = app.test_client().post("/api/games", json={"ruleset": "m72", "players": M72})
    assert created.status_code == 201
    body = created.get_json()
    yield app, body["id"], body["director_token"]
    app.extensions["bansha_db"].dispose()


@pytest.mark.parametrize(("method", "path", "mode"), OPERATIONS)
def test_generated_requests_conform(
    service: tuple[Flask, str, str], method: str, path: str, mode: GenerationMode
) -> None:
    app, game_id, token = service
    operation = schemathesis.openapi.from_wsgi("/openapi.json", app)[path][method]
    params = {"game_id": game_id} if "{game_id}" in path else None
    strategy = operation.as_strategy(
        mode, path_parameters=params, headers={"Authorization": f"Bearer {token}"}
    )

    @given(case=strategy)
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        case.call_and_validate(
            excluded_checks=[positive_data_acceptance],
            additional_checks=[refused_only_for_the_game],
        )

    check()
