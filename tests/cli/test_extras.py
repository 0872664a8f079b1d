"""The service installs without the training stack; ``.[train]`` adds it (issue 18, extras).

``pip install .`` gives what the service needs to predict (the model file is read with numpy
alone); scikit-learn, SciPy, skops, tqdm, matplotlib and threadpoolctl are the ``train`` extra.
The service and ``bansha screen`` run with those imports refused, and ``bansha train`` without
them says what to install.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bansha.train import TRAIN_MODULES, TRAIN_PACKAGES, missing_train_modules, train_main

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


def test_the_train_extra_is_what_bansha_train_checks_and_no_runtime_dependency() -> None:
    train = [_name(r) for r in PROJECT["optional-dependencies"]["train"]]
    assert sorted(train) == sorted(TRAIN_PACKAGES)
    runtime = {_name(r) for r in PROJECT["dependencies"]}
    assert not runtime & set(train), "a training package is back in the runtime dependencies"
    assert {"flask", "sqlalchemy", "numpy"} <= runtime  # the service predicts with numpy alone


#: Import names refused in the child: the whole train extra.
REFUSED = sorted(TRAIN_MODULES)

_CHILD = """
import importlib.abc, json, sys
REFUSED = set(json.loads(sys.argv[1]))
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in REFUSED:
            raise ImportError(f"{name} is a training extra")
sys.meta_path.insert(0, Refuse())
from api import create_app
app = create_app({"DATABASE_URL": "sqlite://", "USE_CLASSIFIER": True})
from api.screening import screener
s = screener("m72", True)
findings = s.screen("你就是个傻逼")
print(json.dumps({"classifier": s.classifier is not None,
                  "categories": sorted({f.category for f in findings}),
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in REFUSED)}))
"""


def test_the_service_screens_without_the_training_extra() -> None:
    assert REFUSED, "nothing left to refuse"
    model = ROOT / "var" / "model.skops"
    env = {**os.environ, "BANSHA_MODEL": str(model)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(REFUSED)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["categories"] == ["insult"] and result["loaded"] == []
    assert result["classifier"] is model.is_file()  # with the trained model when there is one


def test_bansha_screen_runs_without_tqdm(tmp_path: Path) -> None:
    posts = tmp_path / "posts.jsonl"
    posts.write_text(json.dumps({"id": "1", "text": "你就是个傻逼"}, ensure_ascii=False) + "\n")
    child = (
        "import sys\n"
        "sys.modules['tqdm'] = None\n"  # refuses the import
        "from bansha.cli import main\n"
        "args = ['screen', '--no-model', '--ruleset', 'm72', '--json', '--file']\n"
        f"sys.exit(main([*args, {str(posts)!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"insult"' in done.stdout


def test_bansha_train_without_the_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name)
    )
    assert missing_train_modules() == ["matplotlib"]
    assert train_main(["--corpus", str(tmp_path), "--out", str(tmp_path / "m.skops")]) == 2
    assert "pip install '.[train]'" in capsys.readouterr().err
    assert not (tmp_path / "m.skops").exists()
