"""stats.heap: a library's gc.collect() inside the block skips the objects alive before it (Holm at scale)."""

from __future__ import annotations

import gc
import weakref
from unittest import mock

import pytest
from statsmodels.stats.multitest import multipletests

from twelveways import stats
from twelveways.stats.heap import collect_new_objects_only


class Node:
    pass


def cyclic_garbage() -> weakref.ref:
    node = Node()
    node.self = node  # only the cycle collector can free it
    return weakref.ref(node)


def test_a_collection_inside_the_block_leaves_older_objects_to_the_next_ordinary_one():
    gc.collect()
    old = cyclic_garbage()
    with collect_new_objects_only():
        new = cyclic_garbage()
        gc.collect()
        assert new() is None and old() is not None  # the call's own garbage goes, the heap is not walked
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert old() is None


def test_objects_the_caller_froze_stay_frozen():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collect_new_objects_only():
            pass
        # an unfreeze would empty the permanent generation; frozen objects another thread frees meanwhile
        # (pytest-xdist's I/O thread in a worker) leave it one by one, so the count may only fall a little
        assert 0.9 * frozen < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


def test_holm_gives_statsmodels_answer_and_leaves_nothing_frozen():
    p_values = [0.001, 0.02, 0.004, 0.3, 0.012]
    rejected, adjusted = stats.holm_adjust(p_values, alpha=0.05)
    expected = multipletests(p_values, alpha=0.05, method="holm")
    assert rejected == list(expected[0]) and adjusted == pytest.approx(list(expected[1]))
    assert gc.get_freeze_count() == 0


def test_a_block_inside_a_block_keeps_the_outer_freeze_without_walking_it():
    """The inner block neither freezes nor thaws, and never counts the frozen objects (a walk of them all)."""
    with collect_new_objects_only():
        assert gc.get_freeze_count() > 0
        with mock.patch("gc.get_freeze_count", side_effect=AssertionError("walked the frozen heap")):
            with collect_new_objects_only():
                pass
        assert gc.get_freeze_count() > 0  # still frozen: the inner block did not thaw the outer's objects
    assert gc.get_freeze_count() == 0
