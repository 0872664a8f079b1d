"""Read a post-classifier model archive without importing skops (or scikit-learn).

:meth:`moderation.classifier.PostClassifier.save` writes a skops archive (a zip holding
``schema.json`` and one ``.npy`` file per array) of plain data only, and loading audits every
node of the schema against the allow-list before anything is built. The few node kinds that
allow-list admits (dicts with string keys, lists, tuples, JSON scalars, type names and numeric or
string numpy arrays) are simple enough to read directly, which is what this module does: importing
``skops.io`` imports scikit-learn and SciPy's statistics with it, about 100 MiB of resident memory
in every screening process (and every gunicorn worker) for a reader of five small files.

The result is the value ``skops.io.loads`` returns for the same archive
(``tests/moderation/test_modelfile.py`` compares both on the trained model). Anything outside
those node kinds raises :class:`ArchiveError`; callers audit first (:mod:`moderation.classifier`).

>>> import numpy as np, skops.io
>>> data = skops.io.dumps({"a": [1, 2.5, None, "x"], "b": (True,), "c": np.arange(3)})
>>> state = read_state(data)
>>> state["a"], state["b"], state["c"].tolist()
([1, 2.5, None, 'x'], (True,), [0, 1, 2])
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import numpy as np

__all__ = ["ArchiveError", "read_state"]

#: Type names a ``TypeNode`` may name as a dictionary's key type, and what builds the key.
_KEY_TYPES = {("builtins", "str"): str, ("builtins", "int"): int}


class ArchiveError(ValueError):
    """The archive holds something this reader does not build (or is not an archive)."""


def read_state(data: bytes) -> Any:
    """The object a skops archive of plain data holds (see the module docstring)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        schema = json.loads(archive.read("schema.json"))
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as error:
        raise ArchiveError(f"not a skops archive ({error})") from error
    return _Reader(archive).build(schema)


class _Reader:
    """Builds the nodes of one archive, each ``__id__`` once (as skops shares them)."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self._archive = archive
        self._built: dict[int, Any] = {}

    def build(self, node: Any) -> Any:
        if not isinstance(node, dict):
            raise ArchiveError(f"a schema node is {type(node).__name__}, not an object")
        ident = node.get("__id__")
        if isinstance(ident, int) and ident in self._built:
            return self._built[ident]
        value = self._construct(node)
        if isinstance(ident, int):
            self._built[ident] = value
        return value

    def _construct(self, node: dict[str, Any]) -> Any:
        loader = node.get("__loader__")
        module, name = str(node.get("__module__")), str(node.get("__class__"))
        if loader == "JsonNode":
            return json.loads(node["content"])
        if loader == "DictNode" and (module, name) == ("builtins", "dict"):
            key_types = self.build(node["key_types"])
            content = node["content"]
            if not isinstance(content, dict) or len(key_types) != len(content):
                raise ArchiveError("a dictionary's keys and key types differ in number")
            return {
                kind(key): self.build(value)
                for kind, (key, value) in zip(key_types, content.items(), strict=True)
            }
        if loader == "ListNode" and (module, name) == ("builtins", "list"):
            return [self.build(value) for value in node["content"]]
        if loader == "TupleNode" and (module, name) == ("builtins", "tuple"):
            return tuple(self.build(value) for value in node["content"])
        if loader == "TypeNode":
            kind = _KEY_TYPES.get((module, name))
            if kind is None:
                raise ArchiveError(f"type {module}.{name} is not a key type this reader builds")
            return kind
        if loader == "NdArrayNode" and node.get("type") == "numpy":
            try:
                raw = self._archive.read(node["file"])
                return np.load(io.BytesIO(raw), allow_pickle=False)
            except (KeyError, ValueError, OSError) as error:
                raise ArchiveError(f"array {node.get('file')!r}: {error}") from error
        raise ArchiveError(f"node {module}.{name} ({loader}) is not plain data")
