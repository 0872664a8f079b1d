"""Moderation throughput and memory, with jieba's own ``lcut`` as the yardstick.

Measured in one run on the same fixed post sample (the project's ``corpus/*.jsonl`` when present,
else ``bench/moderation_sample.txt``), on one core:

* the full pipeline **with the trained model**: ``Screener.screen`` one post at a time and
  ``Screener.screen_many`` in batches of 256 (``var/model.skops``, or ``$BANSHA_MODEL``; without
  one, a model is trained from the corpus into a temporary file first, so the figure always
  includes the classifier);
* the same two **without the model** (lexicons, patterns, font and water rules only);
* reference: ``jieba.lcut`` (precise mode, jieba's default) over the same posts;
* resident memory (VmRSS) once lexicons are loaded, and again with the model loaded as well.

The timed functions run round-robin (best pass of each kept), so a burst of load on this shared
machine hits the pipeline and its jieba reference alike. The issue's goal is a ratio of at least
0.5 (half of jieba's rate) for the full pipeline, single and batch.

Run alone: ``python -m bench.bench_moderation`` (prints the results as JSON).
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = Path(__file__).resolve().parent / "moderation_sample.txt"
MAX_POSTS = 2000
BATCH = 256
MIN_SECONDS = 1.5
MAX_ROUNDS = 12


def load_posts() -> tuple[list[str], str]:
    """The fixed post sample and where it came from (sorted by id for a stable order)."""
    rows: list[tuple[str, str]] = []
    for path in sorted((ROOT / "corpus").glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and isinstance(obj.get("text"), str):
                    rows.append((str(obj.get("id", "")), obj["text"]))
    if rows:
        rows.sort()
        step = max(1, len(rows) // MAX_POSTS)
        return [t for _, t in rows[::step][:MAX_POSTS]], "corpus/*.jsonl"
    text = SAMPLE.read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return lines, "bench/moderation_sample.txt"


def _rates(functions: dict[str, Callable[[], Any]], count: int) -> dict[str, float]:
    """Items per second of each function (each processes ``count`` items), best pass of each.

    Passes run round-robin until every function has had ``MIN_SECONDS`` (at least 3 rounds).
    """
    for fn in functions.values():
        fn()  # warm caches (per-character tables, jieba dictionary, pinyin segments)
    best = dict.fromkeys(functions, float("inf"))
    spent = dict.fromkeys(functions, 0.0)
    for rounds in range(1, MAX_ROUNDS + 1):
        for name, fn in functions.items():
            t0 = time.perf_counter()
            fn()
            dt = time.perf_counter() - t0
            best[name] = min(best[name], dt)
            spent[name] += dt
        if rounds >= 3 and min(spent.values()) >= MIN_SECONDS:
            break
    return {name: count / seconds for name, seconds in best.items()}


def _rss_mib() -> float:
    """Current resident set size of this process (VmRSS), in MiB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _model(workdir: Path) -> tuple[Any, str]:
    """The trained model and where it came from; trains one from the corpus if there is none."""
    from moderation.classifier import ModelFileError, PostClassifier, default_model_path

    path = default_model_path()
    if not path.is_absolute():
        path = ROOT / path
    try:
        return PostClassifier.load(path), str(
            path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        )
    except ModelFileError:
        pass
    if not list((ROOT / "corpus").glob("*.jsonl")):
        return None, "no model and no corpus to train one"
    from moderation.training import train

    model, _, _, seconds = train(ROOT / "corpus")
    model.save(workdir / "model.skops")
    return model, f"trained for this run from corpus/ ({seconds:.0f} s)"


def run() -> list[dict[str, Any]]:
    """Benchmark results in the shape ``bench/run.py`` expects."""
    import jieba

    from moderation.screen import Screener

    jieba.setLogLevel(logging.WARNING)
    posts, source = load_posts()
    n = len(posts)
    chars = sum(len(p) for p in posts)
    jieba.lcut(posts[0])

    rules = Screener("m08", classifier=None)
    for p in posts:
        rules.screen(p)
    rss_rules = _rss_mib()
    with tempfile.TemporaryDirectory(prefix="bansha-bench-") as tmp:
        model, model_source = _model(Path(tmp))
    full = Screener("m08", classifier=model) if model is not None else None
    if full is not None:
        for p in posts:
            full.screen(p)
    rss_full = _rss_mib()

    def jieba_all() -> None:
        for p in posts:
            jieba.lcut(p)

    def single(screener: Screener) -> Callable[[], None]:
        def go() -> None:
            for p in posts:
                screener.screen(p)

        return go

    def batch(screener: Screener) -> Callable[[], None]:
        def go() -> None:
            for i in range(0, n, BATCH):
                screener.screen_many(posts[i : i + BATCH])

        return go

    functions: dict[str, Callable[[], Any]] = {
        "jieba": jieba_all,
        "rules single": single(rules),
        "rules batch": batch(rules),
    }
    if full is not None:
        functions["full single"] = single(full)
        functions["full batch"] = batch(full)
    rates = _rates(functions, n)
    ref = rates["jieba"]
    ref_label = "jieba.lcut (precise mode) on the same posts"
    sample = f"{n} posts ({chars} chars) from {source}; m08; one core"
    goal = f"goal: ratio >= 0.5, i.e. >= {ref / 2:.0f} posts/s (half of jieba)"

    def result(name: str, key: str, note: str) -> dict[str, Any]:
        return {
            "name": name,
            "value": round(rates[key], 1),
            "unit": "posts/s",
            "reference": ref_label,
            "reference_value": round(ref, 1),
            "higher_is_better": True,
            "note": note,
        }

    out: list[dict[str, Any]] = []
    if full is not None:
        with_model = f"{sample}; trained model ({model_source}) loaded; {goal}"
        out += [
            result(
                "moderation: full pipeline with the model, one post at a time",
                "full single",
                with_model,
            ),
            result(
                f"moderation: full pipeline with the model, screen_many batches of {BATCH}",
                "full batch",
                with_model,
            ),
        ]
    else:
        out.append(
            {
                "name": "moderation: full pipeline with the model",
                "value": 0.0,
                "unit": "posts/s",
                "reference": ref_label,
                "reference_value": round(ref, 1),
                "higher_is_better": True,
                "note": f"not measured: {model_source}",
            }
        )
    out += [
        result(
            "moderation: rules only (no model), one post at a time",
            "rules single",
            f"{sample}; lexicons, patterns, font and water rules",
        ),
        result(
            f"moderation: rules only (no model), screen_many batches of {BATCH}",
            "rules batch",
            f"{sample}; lexicons, patterns, font and water rules",
        ),
        {
            "name": "moderation: resident memory, lexicons loaded (rules only)",
            "value": round(rss_rules, 1),
            "unit": "MiB (VmRSS)",
            "reference": "none (absolute figure)",
            "reference_value": 0.0,
            "higher_is_better": False,
            "note": "Python, jieba's dictionary, OpenCC and pypinyin tables, lexicon automata",
        },
    ]
    if full is not None:
        out.append(
            {
                "name": "moderation: resident memory, lexicons and model loaded",
                "value": round(rss_full, 1),
                "unit": "MiB (VmRSS)",
                "reference": "none (absolute figure)",
                "reference_value": 0.0,
                "higher_is_better": False,
                "note": f"as above plus the model ({model_source}) and its prediction tables",
            }
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print the results as JSON."""
    print(json.dumps(run(), ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
