"""Print pyproject.toml's requirements, one a line: ``python deploy/requirements.py build run dev``.

``build``: the build system's (setuptools, mypy for mypyc); ``run``: the package's dependencies;
``dev``: the dev extra. The Makefile installs ``build run`` first and then the package itself
without build isolation, so mypyc compiles once, in the venv, with the dependencies' types at
hand, and ``venv-dev`` adds ``dev`` without rebuilding anything.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def requirements(groups: list[str]) -> list[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    table = {
        "build": data["build-system"]["requires"],
        "run": data["project"]["dependencies"],
        **data["project"].get("optional-dependencies", {}),
    }
    unknown = [g for g in groups if g not in table]
    if unknown:
        raise SystemExit(f"unknown requirement group(s): {', '.join(unknown)}")
    return [req for group in groups for req in table[group]]


if __name__ == "__main__":
    print("\n".join(requirements(sys.argv[1:])))
