"""The training benchmark: time to a quality target under MLPerf timing rules (issue 5).

Modules, one concern each:

* :mod:`.data`      untimed reformatting of the data sets into ``data/train/*.npz`` (+ manifest),
                    the IDX reader for real image files;
* :mod:`.models`    the model families (MLP, small CNN) in two sizes, and the reference checkpoint;
* :mod:`.opcount`   operations counted per dtype as actually executed (F5);
* :mod:`.mllog_io`  one ``mllog`` log per run, its parser and the shipped compliance ruleset;
* :mod:`.loop`      one timed run: init (excluded, recorded), run_start at first data touch,
                    run_stop at the first validation eval that reaches the target;
* :mod:`.dist`      the data-parallel worker under MPI (gradient Allreduce, top-k sparsification);
* :mod:`.score`     the MLPerf olympic mean;
* :mod:`.sweeps`    the study plan (batch size, ranks, precision, sparsification, LR search,
                    families, input size, I/O) and ``results/train.nc``.
"""
