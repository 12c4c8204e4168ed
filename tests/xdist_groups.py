"""``--dist loadgroup`` as pytest-xdist means it, under pytest 9.2 too (a plugin of the suite).

xdist keeps the tests of one ``xdist_group`` on one worker by giving their node ids the
suffix ``@group``, which its scheduler reads. xdist 3.8 sets it through ``Node._nodeid``;
pytest 9.2 takes a node id from ``Node._id`` instead, so the suffix was lost without a word
and a group's tests were spread over both workers: the two-node Ray module started its
cluster and made its local shards on each (about 15 s twice), in no order its tests assume.
Here the suffix is set the way this pytest reads it, after xdist's own attempt (nothing
happens where that one worked).
"""

from __future__ import annotations

import pytest


def group_suffix(item: pytest.Item) -> str:
    """``@name`` of the item's ``xdist_group`` marks (names joined as xdist joins them), or
    the empty string."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "@" + "_".join(sorted(names)) if names else ""


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not getattr(config.option, "loadgroup", False):  # set on xdist's workers only
        return
    for item in items:
        suffix = group_suffix(item)
        if not suffix or item.nodeid.endswith(suffix):
            continue
        grouped = item.nodeid + suffix
        ident = getattr(item, "_id", None)
        if ident is not None and hasattr(type(ident), "parse"):  # pytest 9.2: a NodeId
            item._id = type(ident).parse(grouped)
        else:  # where the node id is the string xdist sets
            item._nodeid = grouped  # type: ignore[attr-defined]
