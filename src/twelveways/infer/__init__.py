"""MLPerf LoadGen inference benchmark of the trained model (F9, F12).

Modules: :mod:`.querycount` (MLPerf's statistical query counts), :mod:`.scenarios` (the four
scenarios and their reported numbers), :mod:`.model` / :mod:`.data` (checkpoint and test split),
:mod:`.variants` (fp32 / bf16 / int8), :mod:`.qsl` / :mod:`.sut` (LoadGen's QSL and our Python
SUT), :mod:`.harness` (one run in its own directory), :mod:`.parse` (LoadGen's logs),
:mod:`.accuracy` (the accuracy script), :mod:`.server_search`, :mod:`.runs`, :mod:`.records`,
:mod:`.run` (the stage's CLI).  Importing this package loads neither torch nor LoadGen.
"""

from .querycount import BELOW_MINIMUM_LABEL, min_query_count

__all__ = ["min_query_count", "BELOW_MINIMUM_LABEL"]
