"""Run every ``bench/bench_*.py`` and rewrite BENCHMARKS.md.

Each benchmark module exposes ``run() -> list[dict]``; every result carries its own reference
measured in the same run, because this machine is noisy and only ratios compare across runs.

Usage: ``python -m bench.run [--only NAME] [--output BENCHMARKS.md]``
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import math
import os
import platform
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REQUIRED = ("name", "value", "unit", "reference", "reference_value", "higher_is_better")


def machine() -> dict[str, str]:
    """Facts about the machine the figures were taken on."""
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    except OSError:
        pass
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "unknown"
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "memory": mem,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load average at start": load,
    }


def ratio(result: dict[str, Any]) -> float:
    """How many times better than the reference (>1 is better, whatever the unit's direction)."""
    value, ref = float(result["value"]), float(result["reference_value"])
    if value == 0 or ref == 0:
        return float("nan")
    return value / ref if result["higher_is_better"] else ref / value


def discover() -> list[str]:
    return sorted(p.stem for p in (ROOT / "bench").glob("bench_*.py"))


def render(info: dict[str, str], sections: list[tuple[str, list[dict[str, Any]], str]]) -> str:
    out = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`python -m bench.run`); do not edit by hand.",
        "Machines here are noisy: compare the **ratio** column (this figure against the reference",
        "measured in the same run; above 1 means better than the reference), not absolute times.",
        "",
        "## Machine",
        "",
    ]
    out += [f"- {k}: {v}" for k, v in info.items()]
    for module, results, error in sections:
        out += ["", f"## {module}", ""]
        if error:
            out += ["Failed to run:", "", "```", error.rstrip(), "```"]
            continue
        out += [
            "| benchmark | value | reference (same run) | reference value | ratio | note |",
            "|---|---|---|---|---|---|",
        ]
        for r in results:
            shown = ratio(r)
            out.append(
                f"| {r['name']} | {float(r['value']):,.2f} {r['unit']} | {r['reference']} | "
                f"{float(r['reference_value']):,.2f} | "
                f"{'—' if math.isnan(shown) else f'{shown:.2f}'} | {r.get('note', '')} |"
            )
    made = ROOT / "bench" / "make_run.json"
    if made.exists():  # measured apart (it needs a fresh clone and a new venv): see that file
        data = json.loads(made.read_text(encoding="utf-8"))
        out += ["", "## make run from a fresh clone (measured apart, bench/make_run.json)", ""]
        out += [f"- {k.replace('_', ' ')}: {v}" for k, v in data.items()]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="run only this module (e.g. bench_game)")
    parser.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"))
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    info = machine()
    sections: list[tuple[str, list[dict[str, Any]], str]] = []
    failed = False
    for name in args.only or discover():
        started = time.perf_counter()
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        try:
            results = importlib.import_module(f"bench.{name}").run()
            for r in results:
                missing = [k for k in REQUIRED if k not in r]
                if missing:
                    raise ValueError(f"result {r.get('name')!r} lacks {missing}")
            sections.append((name, results, ""))
        except Exception:
            failed = True
            sections.append((name, [], traceback.format_exc()))
        print(f"bench: {name} took {time.perf_counter() - started:.1f} s", file=sys.stderr)
    Path(args.output).write_text(render(info, sections), encoding="utf-8")
    print(f"bench: wrote {args.output}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
