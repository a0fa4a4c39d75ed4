"""resultset.matches: a category column is matched on its categories, and must select what matching every
row's text selects (a missing value matches nothing, not even "nan")."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from hypothesis_profiles import examples
from twelveways.resultset import matches, select

TEXTS = st.sampled_from(["a", "b", "32", "32.0", "nan", "None", ""])
WANTED = st.one_of(TEXTS, st.lists(st.one_of(TEXTS, st.just(32), st.none()), max_size=4))


@settings(max_examples=examples(200), deadline=None)
@given(values=st.lists(st.one_of(TEXTS, st.none()), max_size=30), wanted=WANTED,
       unused=st.lists(TEXTS, max_size=3))
def test_a_category_column_matches_as_its_texts_do(values, wanted, unused):
    column = pd.Series(pd.Categorical(values, categories=sorted(set(v for v in values if v is not None) | set(unused))))
    options = wanted if isinstance(wanted, list) else [wanted]
    expected = column.astype(str).isin({str(v) for v in options}).to_numpy()
    assert np.array_equal(matches(column, wanted), expected)


def test_select_by_a_category_filter_keeps_the_matching_rows_in_order():
    frame = pd.DataFrame({"metric": pd.Categorical(["time"] * 5), "value": [1.0, 2.0, 3.0, 4.0, 5.0],
                          "run_id": pd.Categorical(["r1", "r2", None, "r1", "r3"]), "valid": [True] * 5,
                          "iteration": [1] * 5, "rank": [-1] * 5})
    assert select(frame, "time", {"run_id": "r1"})["value"].tolist() == [1.0, 4.0]
    assert select(frame, "time", {"run_id": ["r3", "r2"]})["value"].tolist() == [2.0, 5.0]
    assert select(frame, "time", {"run_id": "r9"}).empty
