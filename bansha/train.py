"""``bansha train``: the trainer of :mod:`moderation.training` plus the service's own examples.

The screener's package knows no database. This CLI layer adds ``--include-decisions``: it reads the
director's labelled decisions (``models.labelled``) and hands them to the trainer as plain
:class:`~moderation.training.Post` examples, which join the training split only.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence

from moderation.training import CATEGORIES, Post, build_parser, run

#: What ``pip install '.[train]'`` adds: distribution name -> import name (pyproject.toml
#: ``train``; the two lists are compared by tests/cli/test_extras.py).
TRAIN_PACKAGES: dict[str, str] = {
    "scikit-learn": "sklearn",
    "scipy": "scipy",
    "skops": "skops",
    "tqdm": "tqdm",
    "matplotlib": "matplotlib",
    "threadpoolctl": "threadpoolctl",
}
TRAIN_MODULES: tuple[str, ...] = tuple(TRAIN_PACKAGES.values())

#: Where decisions are read from without ``DATABASE_URL`` (the service's default database).
DEFAULT_DATABASE_URL = "sqlite:///var/bansha.sqlite3"


class DecisionsError(RuntimeError):
    """The director's labelled decisions could not be read from the database."""


def load_decision_examples(database_url: str) -> list[Post]:
    """The director's labelled decisions as training posts (labels outside CATEGORIES are dropped).

    Reads ``models.labelled.load_labelled_examples(database_url)``; a missing module, database or
    table raises :class:`DecisionsError` saying what to do about it.
    """
    try:
        from models.labelled import load_labelled_examples
    except ImportError as error:
        raise DecisionsError(
            f"--include-decisions needs models.labelled.load_labelled_examples ({error})"
        ) from error
    shown = _hide_password(database_url)
    try:
        examples = list(load_labelled_examples(database_url))
    except Exception as error:  # any driver or schema failure is reported the same way
        # SQLAlchemy wraps the driver's error in a long message with the SQL; the driver's is enough
        detail = getattr(error, "orig", None) or error
        raise DecisionsError(
            f"cannot read director decisions from {shown}: {detail}. "
            "Is the database reachable and upgraded ('bansha db upgrade')?"
        ) from error
    posts = []
    for number, example in enumerate(examples, start=1):
        labels = tuple(c for c in CATEGORIES if c in set(example.labels))
        text = str(example.text)
        post_id = str(getattr(example, "id", "") or f"decision-{number:06d}")
        ruleset = getattr(example, "ruleset", None) or None
        if text.strip():
            source = f"{shown} example {number}"
            posts.append(Post(post_id, text, labels, "none", ruleset, source))
    return posts


def _hide_password(url: str) -> str:
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # an unparsable URL is shown as given; it holds no password we could find
        return url


def missing_train_modules() -> list[str]:
    """The training extras (``.[train]``) this environment lacks."""
    return [name for name in TRAIN_MODULES if importlib.util.find_spec(name) is None]


def train_main(argv: Sequence[str] | None = None) -> int:
    """``bansha train [... --include-decisions]``: exit 0 on success, 2 on bad input."""
    missing = missing_train_modules()
    if missing:
        print(
            f"bansha train: 训练需要可选依赖 {', '.join(missing)}，"
            "请先安装：pip install '.[train]'（make model 会自动安装）",
            file=sys.stderr,
        )
        return 2
    parser = build_parser()
    parser.add_argument(
        "--include-decisions",
        action="store_true",
        help="add the director's labelled decisions from the database (DATABASE_URL) to training",
    )
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    examples: list[Post] = []
    if args.include_decisions:
        url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
        try:
            examples = load_decision_examples(url)
        except DecisionsError as error:
            print(f"bansha train: {error}", file=sys.stderr)
            return 2
    return run(args, examples)
