"""Clean false-positive rate and per-category recall of the screener on labelled posts.

Reads ``corpus/holdout/holdout.jsonl`` and ``corpus/*.jsonl`` and screens every post under M08
and M72 (together they cover every category, as ``bansha train`` scores the held-out set): a
post counts as flagged for a category when either screener finds it. Printed per set, rules
only and with the trained model (``var/model.skops``, which was trained on ``corpus/*.jsonl``,
so its figures there are training-set figures; the rules-only ones are not).

``--layers`` switches the reading layers (``moderation.layers.Layer``) for a before/after
comparison: ``--layers none`` screens as the code did before them.

Run: ``python -m bench.screen_quality [--layers all|none|NAME,NAME] [--show N]``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ("m08", "m72")


def load(paths: Sequence[Path]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for path in paths:
        with path.open(encoding="utf-8") as fh:
            rows.extend(json.loads(line) for line in fh if line.strip())
    return rows


def score(rows: Sequence[dict[str, object]], classifier: object, layers: object, show: int) -> str:
    from lexicons.loader import CATEGORIES
    from moderation.screen import Screener

    extra = {} if layers is None else {"layers": layers}
    screeners = [Screener(r, classifier=classifier, **extra) for r in RULESETS]  # type: ignore[arg-type]
    texts = [str(r["text"]) for r in rows]
    found: list[set[str]] = [set() for _ in rows]
    for s in screeners:
        for i, fs in enumerate(s.screen_many(texts)):
            found[i].update(f.category for f in fs if f.category in CATEGORIES)
    labels = [set(r["labels"]) for r in rows]  # type: ignore[call-overload]
    clean = [i for i, lab in enumerate(labels) if not lab]
    flagged = [i for i in clean if found[i]]
    out = [f"clean flagged {len(flagged)}/{len(clean)} = {len(flagged) / max(1, len(clean)):.2%}"]
    parts = []
    for c in CATEGORIES:
        pos = [i for i, lab in enumerate(labels) if c in lab]
        if pos:
            hit = sum(c in found[i] for i in pos)
            parts.append(f"{c} {hit}/{len(pos)}={hit / len(pos):.2f}")
    out.append("recall: " + ", ".join(parts))
    for i in flagged[:show]:
        out.append(f"  FP {sorted(found[i])}: {texts[i]}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    from moderation.screen import load_default_classifier

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="all")
    parser.add_argument("--show", type=int, default=0, help="list this many flagged clean posts")
    args = parser.parse_args(argv)
    try:
        from moderation.layers import Layer
    except ImportError:  # a checkout from before the reading layers: screen as it did
        layers = None
    else:
        layers = Layer.parse(args.layers)
    sets = {
        "holdout": load([ROOT / "corpus/holdout/holdout.jsonl"]),
        "corpus": load(sorted((ROOT / "corpus").glob("*.jsonl"))),
    }
    model = load_default_classifier()
    for name, rows in sets.items():
        for label, clf in (("rules only", None), ("with model", model)):
            print(f"== {name} ({len(rows)} posts), {label}, layers={args.layers}")
            print(score(rows, clf, layers, args.show))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
