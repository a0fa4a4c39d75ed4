"""The training benchmark: time to a quality target under MLPerf timing rules.

Modules, one concern each:

* :mod:`.settings`  the config section ``train`` parsed once into frozen records, and the one list
                    of data sets a config needs (the Snakemake rules read it too);
* :mod:`.data`      untimed reformatting of the data sets into ``data/train/*.npz`` (+ manifest),
                    the IDX reader for real image files;
* :mod:`.models`    the model families (MLP, small CNN) in two sizes, and the reference checkpoint;
* :mod:`.opcount`   operations counted per dtype as actually executed (F5);
* :mod:`.mllog_io`  one ``mllog`` log per run, its parser and the shipped compliance ruleset;
* :mod:`.loop`      one timed run: init (excluded, recorded), run_start at first data touch,
                    run_stop at the first validation eval that reaches the target;
* :mod:`.dist`      the data-parallel worker under MPI (gradient Allreduce, top-k sparsification);
* :mod:`.score`     the MLPerf olympic mean;
* :mod:`.planning`  the study plan (batch size, ranks, precision, sparsification, LR search,
                    families, input size, I/O);
* :mod:`.records`   one run's spec and its result rows, with the metrics' units and definitions;
* :mod:`.sweeps`    launching the plan in seeded order, scoring it, and ``results/train.nc``.
"""
