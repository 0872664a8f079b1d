"""The console's label tables keyed by the game core's closed sets (game_rules.enums) label exactly
their members, so a wrong key fails here instead of showing a raw key on the page."""

from __future__ import annotations

import pytest

from api.console.labels import check_keys, labels
from game_rules.enums import LABELLED


def test_console_label_tables_use_the_core_keys() -> None:
    """The divined fox read ``divine`` in the console and ``divined`` in the core: a table keyed by
    a closed set must label exactly its members."""
    tables = labels()
    for table, members in LABELLED.items():
        assert set(tables[table]) == {str(m.value) for m in members}, table
    assert tables["causes"]["divined"]


def test_a_label_table_with_a_wrong_key_is_refused() -> None:
    tables = {k: dict(v) for k, v in labels().items()}
    tables["causes"]["divine"] = tables["causes"].pop("divined")
    with pytest.raises(ValueError, match="unknown keys \\['divine'\\], missing \\['divined'\\]"):
        check_keys(tables)
