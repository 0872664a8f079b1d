"""Clean false-positive rate and per-category recall of the screener on labelled posts.

Reads ``corpus/holdout/holdout.jsonl`` and ``corpus/*.jsonl`` and screens every post under M08
and M72 (together they cover every category, as ``bansha train`` scores the held-out set): a
post counts as flagged for a category when either screener finds it. Printed per set, rules
only and with the trained model (``var/model.skops``, which was trained on ``corpus/*.jsonl``,
so its figures there are training-set figures; the rules-only ones are not).

``--layers`` switches the reading layers (``moderation.layers.Layer``) for a before/after
comparison: ``--layers none`` screens as the code did before them.

``--file FILE.jsonl`` (repeatable) scores any labelled set instead, e.g. the blind set
``corpus/blind/blind_a.jsonl``, with the model: a post that names its own ``ruleset`` is screened
under that ruleset only, the others under M08 and M72. It prints per-category precision, recall
and F1, the macro-F1 over insult/oath/vest, the clean false-positive rate, recall per evasion
kind, and (``--show N``) the first N misses and false positives of each category for error
analysis.

Run: ``python -m bench.screen_quality [--layers all|none|NAME,NAME] [--show N] [--file F]
[--rules-only]``.
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


def screen_rows(
    rows: Sequence[dict[str, object]], classifier: object, layers: object
) -> list[set[str]]:
    """The categories found in each row: under its own ruleset if it names one, else M08+M72."""
    from lexicons.loader import CATEGORIES
    from moderation.screen import Screener

    extra = {} if layers is None else {"layers": layers}
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, row in enumerate(rows):
        own = row.get("ruleset")
        groups.setdefault((str(own),) if own else RULESETS, []).append(i)
    found: list[set[str]] = [set() for _ in rows]
    for rulesets, indices in groups.items():
        texts = [str(rows[i]["text"]) for i in indices]
        for ruleset in rulesets:
            screener = Screener(ruleset, classifier=classifier, **extra)  # type: ignore[arg-type]
            for i, findings in zip(indices, screener.screen_many(texts), strict=True):
                found[i].update(f.category for f in findings if f.category in CATEGORIES)
    return found


def _f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def quality(rows: Sequence[dict[str, object]], found: Sequence[set[str]], show: int) -> str:
    """Per-category P/R/F1, clean FPR, evasion recall and the first ``show`` errors of each kind."""
    from lexicons.loader import CATEGORIES

    labels = [set(r["labels"]) for r in rows]  # type: ignore[call-overload]
    out: list[str] = []
    f1s: dict[str, float] = {}
    errors: list[str] = []
    for c in CATEGORIES:
        tp = sum(c in f and c in g for f, g in zip(found, labels, strict=True))
        fp = sum(c in f and c not in g for f, g in zip(found, labels, strict=True))
        fn = sum(c not in f and c in g for f, g in zip(found, labels, strict=True))
        if not tp + fp + fn:
            continue
        f1s[c] = _f1(tp, fp, fn)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        out.append(f"{c:10} P {p:.3f} R {r:.3f} F1 {f1s[c]:.3f}  (tp {tp} fp {fp} fn {fn})")
        for kind, wanted in (("MISS", True), ("FP", False)):
            chosen = [
                i
                for i, (f, g) in enumerate(zip(found, labels, strict=True))
                if (c in g) == wanted and (c in f) != wanted
            ]
            for i in chosen[:show]:
                row = rows[i]
                errors.append(
                    f"  {kind} {c} {row['id']} [{row.get('evasion')}] found={sorted(found[i])} "
                    f"gold={sorted(labels[i])}: {str(row['text'])[:160]!r}"
                )
    core = [f1s.get(c, 0.0) for c in ("insult", "oath", "vest")]
    out.insert(0, f"macro-F1 insult/oath/vest {sum(core) / 3:.3f}")
    clean = [i for i, g in enumerate(labels) if not g]
    flagged = [i for i in clean if found[i]]
    share = len(flagged) / max(1, len(clean))
    out.append(f"clean with any finding {len(flagged)}/{len(clean)} = {share:.1%}")
    tally: dict[str, list[int]] = {}
    for row, f, g in zip(rows, found, labels, strict=True):
        for c in g:
            t = tally.setdefault(str(row.get("evasion")), [0, 0])
            t[0] += c in f
            t[1] += 1
    out.append(
        "evasion recall: " + ", ".join(f"{k} {a}/{n}" for k, (a, n) in sorted(tally.items()))
    )
    return "\n".join(out + errors)


def main(argv: Sequence[str] | None = None) -> int:
    from moderation.screen import load_default_classifier

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="all")
    parser.add_argument("--show", type=int, default=0, help="list this many flagged clean posts")
    parser.add_argument("--file", type=Path, action="append", default=[], help="a labelled set")
    parser.add_argument("--rules-only", action="store_true", help="with --file: no model")
    args = parser.parse_args(argv)
    try:
        from moderation.layers import Layer
    except ImportError:  # a checkout from before the reading layers: screen as it did
        layers = None
    else:
        layers = Layer.parse(args.layers)
    if args.file:
        clf = None if args.rules_only else load_default_classifier()
        for path in args.file:
            rows = load([path])
            print(f"== {path} ({len(rows)} posts), layers={args.layers}")
            print(quality(rows, screen_rows(rows, clf, layers), args.show))
        return 0
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
