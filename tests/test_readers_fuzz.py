"""Every reader survives any damage to a real file: a parsed result or one error line (issue 38, Build 5).

For one or two real files of each format (tests/data/formats, tests/corpus; CSV and NetCDF are
written here), Hypothesis draws mutations (tests/fuzz_mutations.py: truncation, spans deleted or
repeated, JSON type swaps, 400-digit integers, 1e308, NaN, Infinity, negative numbers, nesting
100,000 deep, 1 MB lines, latin-1, UTF-16 and invalid UTF-8 bytes, launcher lines, gzip).  The
damaged file is read twice, in a forked child bounded in time and memory:

* named on its own (``read_paths([file])``): results, or AuditInputError of one line that names the
  file and shows no traceback nor a Python repr; any other exception, a hang or a memory blow-up fails;
* inside a tree beside a clean file (``read_paths([tree])``): the tree is read, the clean file's
  results are there, and the damaged file is read or listed in ``skipped`` (``unreadable`` when it
  was recognized and could not be read).

An error that only the framework's safety net caught (``... could not be read (KeyError: ...)``) is
a reader that lacks its own message: reported per format (the reader's owner fixes it), apart from
the hard failures above.

Examples per file: ``TWELVEWAYS_FUZZ_EXAMPLES`` (default 20, as `make test` runs it: the whole file runs in
well under a minute on 2 cores; `make test-fast` draws 5); a campaign:
``TWELVEWAYS_FUZZ_EXAMPLES=2000 .venv/bin/pytest -q -p no:cacheprovider tests/test_readers_fuzz.py``.
``TWELVEWAYS_FUZZ_SECONDS`` (default 20) is the wall-clock limit of one example, ``TWELVEWAYS_FUZZ_SHRINK=1``
shrinks a failure to a smaller mutation (slow on hangs), ``TWELVEWAYS_FUZZ_KEEP_GOING=1`` runs every example
and reports all failures, ``TWELVEWAYS_FUZZ_LOG=FILE`` writes one JSON line per example (what each damaged
file came to), ``TWELVEWAYS_FUZZ_SEED=N`` draws another stream of examples than the fixed one ``make test``
runs.
"""

from __future__ import annotations

import gzip
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from hypothesis_profiles import examples

from twelveways import readers, results
from twelveways.errors import AuditInputError
from twelveways.readers import registry
from twelveways.readers.common import MAX_DECOMPRESSED_BYTES
from twelveways.readers.decode import MAX_PREAMBLE_LINES
from twelveways.readers.head import Head

sys.path.insert(0, str(Path(__file__).parent))
import fuzz_mutations as fm  # noqa: E402

HERE = Path(__file__).parent
DATA = HERE / "data" / "formats"
CORPUS = HERE / "corpus"
EXAMPLES = int(os.environ.get("TWELVEWAYS_FUZZ_EXAMPLES", "20"))
SECONDS = float(os.environ.get("TWELVEWAYS_FUZZ_SECONDS", "20"))
MEMORY = 2 << 30  # bytes of address space a read may add (the bound: under 2 GB)
LOG = os.environ.get("TWELVEWAYS_FUZZ_LOG")
#: Another stream of examples (a campaign each night), instead of the one derandomized stream of ``make test``.
RANDOM_SEED = int(os.environ["TWELVEWAYS_FUZZ_SEED"]) if os.environ.get("TWELVEWAYS_FUZZ_SEED") else None
KEEP_GOING = bool(os.environ.get("TWELVEWAYS_FUZZ_KEEP_GOING"))  # a campaign: every failure, not the first
PHASES = (Phase.explicit, Phase.generate) + ((Phase.shrink,) if os.environ.get("TWELVEWAYS_FUZZ_SHRINK") else ())
#: A clean file beside the damaged one in a tree: it must be read whatever happens to the other.
CLEAN = CORPUS / "hyperfine" / "3em_3em-evm-benchmark.json"
#: What a message must not show: a traceback, a Python repr of a structure or an object.
NOT_IN_A_MESSAGE = ("Traceback", "{'", "<object", " object at 0x", "File \"")
STARTS_WITH = "text starting "  # walk.looks_like quotes the file's first characters after it
SAFETY_NET = " could not be read ("  # the framework's catch of an exception a reader did not foresee


@dataclass(frozen=True)
class Seed:
    """A real file to damage: ``source`` (a file, or a folder copied whole), ``targets`` the files in it damaged."""

    id: str
    source: Path
    targets: tuple[str, ...] = ()

    @property
    def group(self) -> bool:
        """True when a folder is copied whole (its files are read together)."""
        return bool(self.targets)


SEEDS = [
    Seed("pytest-benchmark", DATA / "pytest-benchmark" / "0030_5b78858e_uncommitted-changes.json"),
    Seed("asv", DATA / "asv" / "results" / "ubuntu-22.04", ("00370342-conda-py3.10.json", "machine.json")),
    Seed("osu", DATA / "osu" / "latency_compute001.log"),
    Seed("osu-bibw", DATA / "osu" / "bibw_compute001.log"),
    Seed("reframe", DATA / "reframe" / "stream_test.log"),
    Seed("criterion", DATA / "criterion" / "gg1_circular_threads" / "1" / "new",
         ("sample.json", "estimates.json", "benchmark.json")),
    Seed("hpl", DATA / "hpl" / "HPL_nvidia_gpu.out"),
    Seed("hpl-sweep", DATA / "hpl" / "HPL_cpu_sweep.out"),
    Seed("jmh", DATA / "jmh" / "arraycopy-jmh-result.json"),
    Seed("jmh-json-bench", DATA / "jmh" / "json-bench-jmh-result.json"),
    Seed("hpcg-txt", DATA / "hpcg" / "n104-96p-1t_V3.1_2023-08-25_16-18-10.txt"),
    Seed("hpcg-yaml", DATA / "hpcg" / "HPCG-Benchmark-3.0_2019.03.27.09.38.13.yaml"),
    Seed("stream", DATA / "stream" / "stream_hpcc_tutorial.txt"),
    Seed("ior-json", DATA / "ior" / "ior_posix_laptop.json"),
    Seed("ior-text", DATA / "ior" / "io500_ior_easy_write_sc21.txt"),
    Seed("pyperf", CORPUS / "pyperf" / "py3.json.gz"),
    Seed("gbench", CORPUS / "gbench" / "google_benchmark_test1_run1.json"),
    Seed("hyperfine", CORPUS / "hyperfine" / "3em_3em-js-benchmark.json"),
    Seed("loadgen", CORPUS / "mlperf_inference" / "v4.1" / "closed" / "ASUSTeK" / "results" / "ESC4000A_E12_4XH100_TRT"
         / "resnet50" / "Server" / "performance" / "run_1", ("mlperf_log_summary.txt", "mlperf_log_detail.txt")),
    Seed("mlperf-training", CORPUS / "mlperf_training" / "v4.0" / "Google" / "results" / "cloud-tpu-v5p-3072-maxtext"
         / "gpt3", ("result_0.txt", "result_1.txt", "scaling.json")),
    Seed("csv", Path("csv/samples.csv")),        # written by the fixture ``generated``
    Seed("netcdf", Path("netcdf/prk.nc")),       # written by the fixture ``generated``
]
#: Formats whose reader still fails here (reader modules are their owners' to fix): {seed id: reason}.
KNOWN_READER_FAILURES: dict[str, str] = {}


# --- seeds ----------------------------------------------------------------------------------------

ROW = {"benchmark": "csv", "workload": "copy", "implementation": "c", "ranks": 1, "threads": 1, "size": 1000,
       "precision": "fp64", "seed": -1, "iteration": -1, "rank": -1, "metric": "time", "unit": "s", "valid": True}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """The CSV and NetCDF seeds (their formats publish no file to copy: they are written as documented)."""
    root = tmp_path_factory.mktemp("generated")
    rows = [{**ROW, "run_id": f"r{i}", "value": 0.010 + 0.001 * i} for i in range(6)]
    csv = root / "csv" / "samples.csv"
    csv.parent.mkdir(parents=True)
    csv.write_text(",".join(rows[0]) + "\n" + "\n".join(",".join(str(v) for v in r.values()) for r in rows) + "\n")
    nc = root / "netcdf" / "prk.nc"
    nc.parent.mkdir(parents=True)
    results.write(results.from_records([{**r, "benchmark": "prk"} for r in rows], "prk", attrs={
        "environment_hash": "e" * 64, "config_hash": "c" * 64, "git_commit": "0" * 40, "git_dirty": 0}), nc)
    return root


def _source(seed: Seed, generated: Path) -> Path:
    return seed.source if seed.source.is_absolute() else generated / seed.source


def _seed_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def _layout(seed: Seed, source: Path, case: Path, target_name: str, data: bytes) -> tuple[Path, Path]:
    """A tree under ``case``: the seed (its folder for a group) with the damaged file, and a clean file apart.
    Returns (the damaged file, the tree)."""
    tree = case / "tree"
    if source.is_dir():
        shutil.copytree(source, tree / "seed")
        target = tree / "seed" / target_name
    else:
        target = tree / "seed" / source.name.removesuffix(".gz")
        target.parent.mkdir(parents=True)
    target.write_bytes(data)
    (tree / "clean").mkdir()
    shutil.copyfile(CLEAN, tree / "clean" / CLEAN.name)
    return target, tree


# --- the reads, in the child ----------------------------------------------------------------------

def _read_both(target: Path, tree: Path) -> dict:
    """Both reads of a damaged file (run in the guarded child; only AuditInputError is expected of the first)."""
    out: dict = {"recognizers": _recognizer_slips(target), "companion": _companion(target)}
    try:
        out["explicit"] = ("loaded", [item.path for item in readers.read_paths([target])])
    except AuditInputError as exc:
        out["explicit"] = ("error", str(exc), exc.one_line())
    skipped: list = []
    loaded = readers.read_paths([tree], skipped=skipped)  # never raises: the clean file is read
    out["tree"] = ([item.path for item in loaded], [(str(s.path), s.why, s.unreadable) for s in skipped])
    return out


def _confirmed(outcome: fm.Outcome, target: Path, tree: Path) -> fm.Outcome:
    """A hang or a crash of the forked child, confirmed in a fresh interpreter (same limits), else that one's outcome.

    Why: the child is forked from pytest, which other tests may have left with threads; a lock one of them held
    at the fork would hang the child without any fault of the reader.  A fresh process has no such threads."""
    if outcome.kind not in ("hang", "killed"):
        return outcome
    script = (f"import pickle, resource, sys; sys.path.insert(0, {str(HERE)!r}); import test_readers_fuzz as t; "
              f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY + (1 << 30)}, {MEMORY + (1 << 30)})); "
              f"sys.stdout.buffer.write(pickle.dumps(t._read_both(t.Path({str(target)!r}), t.Path({str(tree)!r}))))")
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=SECONDS + 30)
    except subprocess.TimeoutExpired:
        return outcome  # a fresh process hangs too: the reader's
    if done.returncode != 0:
        return fm.Outcome("raised" if b"Traceback" in done.stderr else "killed", error_type="(fresh process)",
                          message=done.stderr.decode(errors="replace")[-3000:])
    return fm.Outcome("returned", pickle.loads(done.stdout))


def _companion(target: Path) -> bool:
    """True when the file is a companion (asv's machine.json): read with the results beside it, never alone."""
    try:
        fmt = registry.recognize(Head.of(target))
    except AuditInputError:
        return False
    return fmt is not None and bool(fmt.companion)


def _recognizer_slips(target: Path) -> list[str]:
    """Recognizers that raise on the damaged file's head (the registry scores them 0 there; their owners fix them)."""
    try:
        head = Head.of(target)
    except AuditInputError:
        return []
    slips = []
    for fmt in registry.formats():
        try:
            fmt.recognize(head)
        except Exception as exc:  # noqa: BLE001 -- any exception of a recognizer is reported
            slips.append(f"the {fmt.name} recognizer raised {type(exc).__name__}: {' '.join(str(exc).split())[:200]}")
    return slips


# --- the property ---------------------------------------------------------------------------------

def message_problems(message: str, names: tuple[str, ...]) -> list[str]:
    """What is wrong with an error line shown to a user (empty when nothing is)."""
    found = []
    if "\n" in message or "\r" in message:
        found.append("spans several lines")
    shown = message.split(STARTS_WITH, 1)[0]  # what a file starts with, quoted, may be anything
    found += [f"shows {bad!r}" for bad in NOT_IN_A_MESSAGE if bad in shown]
    if not any(name in message for name in names):
        found.append(f"does not name the file ({names[0]})")
    if len(message) > 2000:
        found.append(f"is {len(message):,} characters long")
    return found


def judge(seed: Seed, target: Path, tree: Path, outcome: fm.Outcome) -> tuple[list[str], list[str]]:
    """(hard failures, safety-net catches) of one damaged file."""
    if outcome.kind != "returned":
        return [f"{outcome.kind}: {outcome.error_type} {outcome.message[:1500]}\n{outcome.trace}"], []
    hard, net = [], []
    folder = target.parent
    names = (str(target), str(folder)) if seed.group else (str(target),)
    explicit = outcome.value["explicit"]
    if explicit[0] == "error":
        _, raw, line = explicit
        hard += [f"named alone: the error line {p}: {raw[:600]!r}" for p in message_problems(raw, names)]
        hard += [f"named alone: the printed line {p}: {line[:600]!r}" for p in message_problems(line, names)
                 if "name the file" not in p]
        if SAFETY_NET in line:
            net.append(f"named alone: {line[:400]}")
    loaded, skipped = outcome.value["tree"]
    if str(tree / "clean" / CLEAN.name) not in loaded:
        hard.append(f"in a tree: the clean file beside it was not read (read: {loaded}, skipped: {skipped})")
    net += outcome.value["recognizers"]
    # a folder's files are read together (a group, or asv's results with machine.json): damage shows on any of
    # them, or on the folder (a single file's folder holds it alone, and a damaged file may look like a group's)
    mine = {str(target), str(folder)}
    read_here = [p for p in loaded if p in mine or Path(p).parent == folder]
    listed = [s for s in skipped if s[0] in mine or Path(s[0]).parent == folder]
    for path, why, _ in skipped:
        hard += [f"in a tree: skipped {path} with a reason that {p}: {why[:600]!r}"
                 for p in message_problems(f"{path}: {why}", (path,))]
        if SAFETY_NET in f" {why}" or why.startswith("could not be read ("):
            net.append(f"in a tree: {path}: {why[:400]}")
    if not read_here and not listed and not outcome.value["companion"]:  # a companion alone is passed over
        hard.append(f"in a tree: the damaged file is neither read nor listed as skipped (skipped: {skipped})")
    if not seed.group:
        hard += _consistent(explicit, bool(read_here), listed)
    return hard, net


def _consistent(explicit: tuple, read_in_tree: bool, listed: list) -> list[str]:
    """A single file reads the same named alone and in a tree; a recognized file that fails is listed unreadable."""
    if explicit[0] == "loaded":
        return [] if read_in_tree else [f"read when named alone, not in a tree (skipped: {listed})"]
    if read_in_tree:
        return [f"read in a tree, refused when named alone: {explicit[2][:300]}"]
    unknown = "not a format twelveways reads" in explicit[2]
    if not unknown and not any(unreadable for _, _, unreadable in listed):
        return [f"refused when named alone, but not listed unreadable in a tree (skipped: {listed})"]
    return []


def _log(seed: Seed, name: str, mutations, outcome: fm.Outcome, hard: list, net: list) -> None:
    """One JSON line per example to ``TWELVEWAYS_FUZZ_LOG`` when set (what a campaign met, for triage)."""
    if not LOG:
        return
    value = outcome.value if outcome.kind == "returned" else None
    explicit = value["explicit"] if value else None
    with open(LOG, "a") as handle:
        handle.write(json.dumps({"seed": seed.id, "file": name, "mutations": repr(mutations), "outcome": outcome.kind,
                                 "explicit": explicit[0] if explicit else outcome.error_type,
                                 "message": (explicit[2] if explicit and explicit[0] == "error" else outcome.message)[:300],
                                 "hard": [h[:300] for h in hard], "net": net}) + "\n")


def _warm_up(source: Path, workdir: Path) -> None:
    """Read the clean seed (named and in a tree) and a damaged copy here, before any child is forked: what a
    read imports on first use (reader modules, pydantic models, xarray backends) is then imported once, not
    once per example in every child (seconds each)."""
    broken = workdir / "warm-up" / "broken.json"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text('{"benchmarks": [')
    shutil.copyfile(CLEAN, broken.parent / CLEAN.name)
    for paths in ([source], [broken.parent]):
        try:
            readers.read_paths(paths, skipped=[])
        except Exception:  # noqa: BLE001 -- only imports matter here: the campaign judges the reads
            pass
    shutil.rmtree(broken.parent)


def run_seed(seed: Seed, source: Path, workdir: Path) -> list[str]:
    """The Hypothesis campaign of one seed: hard failures raise (Hypothesis reports the mutation); the
    safety-net catches are returned, one per example, for the caller to judge."""
    targets = seed.targets or (source.name,)
    datas = {name: _seed_bytes(source / name if source.is_dir() else source) for name in targets}
    nets: list[str] = []
    failures: list[str] = []
    _warm_up(source, workdir)

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=RANDOM_SEED is None, database=None, phases=PHASES,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    @hypothesis_seed(RANDOM_SEED)
    def example(data):
        name = data.draw(st.sampled_from(targets), label="file")
        mutations = data.draw(fm.mutations(datas[name]), label="mutations")
        others = [t for t in targets if t != name]
        if others and data.draw(st.integers(0, 5), label="remove another file?") == 0:  # a group missing a file
            mutations = [*mutations, fm.Mutation("AndRemoved", (data.draw(st.sampled_from(others)),))]
        case = Path(tempfile.mkdtemp(dir=workdir))
        try:
            target, tree = _layout(seed, source, case, name, fm.apply(mutations, datas[name]))
            for gone in (m.params[0] for m in mutations if m.kind == "AndRemoved"):
                (target.parent / gone).unlink()
            outcome = _confirmed(fm.guarded(lambda: _read_both(target, tree), seconds=SECONDS, memory=MEMORY),
                                 target, tree)
            hard, net = judge(seed, target, tree, outcome)
        finally:
            shutil.rmtree(case, ignore_errors=True)
        _log(seed, name, mutations, outcome, hard, net)
        if KEEP_GOING and hard:
            failures.append(f"{name} damaged by {mutations}:\n" + "\n".join(hard))
            return
        assert not hard, f"{seed.id}: {name} damaged by {mutations}:\n" + "\n".join(hard)
        nets.extend(f"{name} damaged by {mutations}: {n}" for n in net)

    example()
    assert not failures, f"{seed.id}: {len(failures)} damaged file(s) failed; the first:\n" + "\n".join(failures[:3])
    return nets


@pytest.mark.parametrize("seed", SEEDS, ids=[s.id for s in SEEDS])
def test_damaged_file_is_read_or_one_error_line(seed, generated, tmp_path):
    if seed.id in KNOWN_READER_FAILURES:
        pytest.xfail(KNOWN_READER_FAILURES[seed.id])
    nets = run_seed(seed, _source(seed, generated), tmp_path)
    assert not nets, (f"{seed.id}: {len(nets)} damaged file(s) met an exception the reader did not foresee "
                      "(only the framework's safety net gave a line):\n" + "\n".join(nets[:5]))


# --- the named cases ------------------------------------------------------------------------------

def _guarded_read(paths: list[Path]) -> fm.Outcome:
    def read():
        skipped: list = []
        try:
            loaded = readers.read_paths(paths, skipped=skipped)
        except AuditInputError as exc:
            return ("error", str(exc), [])
        return ("loaded", [(i.path, i.format) for i in loaded], [(str(s.path), s.why, s.unreadable) for s in skipped])
    return fm.guarded(read, seconds=SECONDS, memory=MEMORY)


def test_nesting_100000_deep_is_one_line_named_and_skipped_in_a_tree(tmp_path):
    deep = tmp_path / "tree" / "deep.json"
    deep.parent.mkdir()
    deep.write_bytes(b"[" * 100_000)
    shutil.copyfile(CLEAN, tmp_path / "tree" / "clean.json")
    named = _guarded_read([deep])
    assert named.kind == "returned", named
    kind, message, _ = named.value
    assert kind == "error" and not message_problems(message, (str(deep),)), message
    in_tree = _guarded_read([tmp_path / "tree"])
    assert in_tree.kind == "returned", in_tree
    kind, loaded, skipped = in_tree.value
    assert kind == "loaded" and [p for p, _ in loaded] == [str(tmp_path / "tree" / "clean.json")], in_tree.value
    assert [p for p, _, _ in skipped] == [str(deep)], skipped
    assert not message_problems(f"{deep}: {skipped[0][1]}", (str(deep),)), skipped


def _numbers(path: Path) -> tuple:
    [item] = readers.read_paths([path])
    ds = item.ds
    return item.format, ds.sizes["sample"], ds["value"].values.tolist(), sorted(map(str, ds["workload"].values))


@pytest.mark.parametrize("source", [CORPUS / "gbench" / "google_benchmark_test1_run1.json",
                                    CORPUS / "hyperfine" / "3em_bench.json"], ids=["gbench", "hyperfine"])
@pytest.mark.parametrize("noise", ["mpi", "srun", "both", "pin-table"])
def test_launcher_lines_before_json_read_as_the_clean_file(source, noise, tmp_path):
    """Intel MPI's and SLURM's lines before a JSON document; "pin-table": I_MPI_DEBUG's line per rank, 1,000 ranks."""
    lines = {"mpi": fm.NOISE_LINES[:2], "srun": fm.NOISE_LINES[2:4], "both": fm.NOISE_LINES,
             "pin-table": _pin_table(1000)}[noise]
    noisy = tmp_path / source.name
    noisy.write_bytes(("\n".join(lines) + "\n").encode() + source.read_bytes())
    assert _numbers(noisy) == _numbers(source)
    skipped: list = []
    [item] = readers.read_paths([tmp_path], skipped=skipped)
    assert item.path == str(noisy) and not skipped


def test_mutations_describe_themselves_without_payload():
    """A failing example must print as a recipe, never as the megabyte it inserted."""
    data = (CORPUS / "gbench" / "google_benchmark_test1_run1.json").read_bytes()

    @settings(max_examples=examples(30), deadline=None, derandomize=True, database=None)
    @given(fm.mutations(data))
    def check(mutations):
        assert len(repr(mutations)) < 600
        assert isinstance(fm.apply(mutations, data), bytes)

    check()


def test_guard_reports_hang_crash_and_exception():
    import os as _os
    import time

    assert fm.guarded(lambda: 42, seconds=5, memory=MEMORY).value == 42
    assert fm.guarded(lambda: time.sleep(30), seconds=0.5, memory=MEMORY).kind == "hang"
    crashed = fm.guarded(lambda: _os.abort(), seconds=5, memory=MEMORY)
    assert crashed.kind == "killed" and "signal 6" in crashed.message
    assert "Fatal Python error: Aborted" in crashed.trace and "test_readers_fuzz.py" in crashed.trace
    raised = fm.guarded(lambda: {}["x"], seconds=5, memory=MEMORY)
    assert raised.kind == "raised" and raised.error_type == "builtins.KeyError"
    assert fm.guarded(lambda: bytearray(4 << 30), seconds=5, memory=1 << 30).kind == "memory"


def test_json_swaps_change_the_document():
    doc = {"a": [1, 2.5, "x"], "b": {"c": None}}
    data = json.dumps(doc).encode()

    @settings(max_examples=examples(40), deadline=None, derandomize=True, database=None)
    @given(fm.json_swap(data))
    def check(mutation):
        assert mutation.kind == "JsonSwap"
        mutation(data)

    check()


#: Formats a launcher never writes into: ReFrame's perflog and LoadGen's and MLPerf's logs are written by the
#: tool itself, CSV and NetCDF by people and by twelveways (a noisy one is another file, not a capture of stdout).
NOT_CAPTURED = {"reframe", "csv", "netcdf"}


def _summary(path: Path) -> list:
    return sorted((item.format, dict(item.ds.sizes), round(float(item.ds["value"].fillna(0).values.sum()), 9))
                  for item in readers.read_paths([path], skipped=[]))


def _pin_table(ranks: int) -> tuple[str, ...]:
    """Intel MPI's I_MPI_DEBUG lines: a header, then one line per rank (rank, pid, node, cores)."""
    return fm.NOISE_LINES[:2] + tuple(f"[0] MPI startup(): {r}       {4000 + r}     node{r // 64:03d}  {{{r % 64}}}"
                                      for r in range(ranks))


@pytest.mark.parametrize("noise", ["lines", "pin-table"])
@pytest.mark.parametrize("seed", [s for s in SEEDS if s.id not in NOT_CAPTURED], ids=lambda s: s.id)
def test_launcher_lines_before_any_output_read_as_the_clean_file(seed, noise, tmp_path):
    """A tool's output captured from a job (launcher and scheduler lines first) reads as the clean output;
    "pin-table": Intel MPI's line per rank for 1,000 ranks (45 KB before the output)."""
    name = (seed.targets or (seed.source.name,))[0]
    data = _seed_bytes(seed.source / name if seed.group else seed.source)
    lines = fm.NOISE_LINES if noise == "lines" else _pin_table(1000)
    target, _ = _layout(seed, seed.source, tmp_path, name, ("\n".join(lines) + "\n").encode() + data)
    clean = seed.source if seed.group else tmp_path / "clean-copy" / target.name
    if not seed.group:
        clean.parent.mkdir()
        clean.write_bytes(data)
    assert _summary(target.parent if seed.group else target) == _summary(clean)


def test_damaged_files_read_by_worker_processes_as_in_one_process(tmp_path, monkeypatch):
    """A tree large enough for worker processes (parallel.py) skips the same damaged files, with the same lines."""
    from twelveways.readers import parallel

    tree = tmp_path / "tree"
    for i in range(parallel.MIN_PARALLEL + 4):
        (tree / "clean" / str(i)).mkdir(parents=True)
        shutil.copyfile(CLEAN, tree / "clean" / str(i) / CLEAN.name)
    damage = {"truncated": fm.Mutation("Truncate", (), lambda b: b[:len(b) // 2]),
              "huge": fm.Mutation("HugeInt", (), lambda b: b.replace(b"1", b"1" * 400, 1)),
              "nan": fm.Mutation("NaN", (), lambda b: b.replace(b"2", b"NaN", 3)),
              "long": fm.Mutation("LongLine", (), lambda b: b"1 " * 600_000 + b"\n" + b)}
    for seed in SEEDS:
        if seed.group or not seed.source.is_absolute():
            continue
        for how, mutation in damage.items():
            copy = tree / "damaged" / seed.id / f"{how}-{seed.source.name.removesuffix('.gz')}"
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(mutation(_seed_bytes(seed.source)))

    def read(workers: int):
        monkeypatch.setattr(parallel, "usable_cpus", lambda: workers)
        outcome = fm.guarded(lambda: _read_both(tree / "clean" / "0" / CLEAN.name, tree), seconds=4 * SECONDS,
                             memory=MEMORY)
        assert outcome.kind == "returned", outcome
        loaded, skipped = outcome.value["tree"]
        return sorted(loaded), sorted(skipped)

    alone, pooled = read(1), read(4)
    assert alone == pooled
    loaded, skipped = pooled
    assert sum("/clean/" in p for p in loaded) == parallel.MIN_PARALLEL + 4
    for path, why, _ in skipped:
        assert not message_problems(f"{path}: {why}", (path,)), why


def test_gzip_that_expands_beyond_the_bound_is_one_line_and_bounded_memory(tmp_path):
    """A small gzip whose JSON expands beyond the bound (256 MB): refused in one line, in bounded memory, named or in a tree."""
    import zlib

    bomb = tmp_path / "tree" / "bomb.json.gz"
    bomb.parent.mkdir()
    pack = zlib.compressobj(1, zlib.DEFLATED, 31)
    with bomb.open("wb") as out:
        out.write(pack.compress(b'{"context": {"date": "2024-01-01", "num_cpus": 4}, "benchmarks": ['))
        chunk = b" " * (1 << 20)
        for _ in range(MAX_DECOMPRESSED_BYTES // len(chunk) + 8):
            out.write(pack.compress(chunk))
        out.write(pack.compress(b"]}") + pack.flush())
    shutil.copyfile(CLEAN, tmp_path / "tree" / CLEAN.name)
    named = _guarded_read([bomb])
    assert named.kind == "returned", named
    kind, message, _ = named.value
    assert kind == "error" and not message_problems(message, (str(bomb),)), message
    in_tree = _guarded_read([bomb.parent])
    assert in_tree.kind == "returned", in_tree
    kind, loaded, skipped = in_tree.value
    assert kind == "loaded" and [p for p, _ in loaded] == [str(tmp_path / "tree" / CLEAN.name)], in_tree.value
    assert [p for p, _, _ in skipped] == [str(bomb)]


def test_megabytes_of_blank_lines_inside_json_after_launcher_lines_read_in_bounded_memory(tmp_path):
    """Launcher lines, then a JSON document padded with 100 MB of newlines inside its list (gzip): the clean file's numbers, and
    looking past the launcher lines never splits the whole document into lines (once 5 GB for this file)."""
    import zlib

    source = CORPUS / "gbench" / "google_benchmark_test1_run1.json"
    head, mark, body = source.read_bytes().partition(b'"benchmarks": [')  # recognition sees the keys
    padded = tmp_path / "padded.json.gz"
    pack = zlib.compressobj(1, zlib.DEFLATED, 31)
    with padded.open("wb") as out:
        out.write(pack.compress(("\n".join(fm.NOISE_LINES) + "\n").encode() + head + mark))
        for _ in range(100):
            out.write(pack.compress(b"\n" * (1 << 20)))
        out.write(pack.compress(body) + pack.flush())
    clean = _summary(source)  # read here first: the child then imports nothing
    outcome = fm.guarded(lambda: _summary(padded), seconds=SECONDS, memory=MEMORY)
    assert outcome.kind == "returned", outcome
    assert outcome.value == clean


#: Seeds whose reader does not read its files through gzip yet (reader modules are their owners' to fix).
GZIP_UNREAD: dict[str, str] = {}


@pytest.mark.parametrize("seed", [pytest.param(s, marks=pytest.mark.xfail(reason=GZIP_UNREAD[s.id], strict=False))
                                  if s.id in GZIP_UNREAD else s for s in SEEDS if s.id not in ("csv", "netcdf")],
                         ids=lambda s: s.id)
def test_gzip_of_any_output_reads_as_the_clean_file(seed, tmp_path):
    """Recognition looks through gzip (head.py), so every reader reads through it (common.read_bytes, text_lines)."""
    for name in seed.targets or (seed.source.name,):
        data = _seed_bytes(seed.source / name if seed.group else seed.source)
        target, _ = _layout(seed, seed.source, tmp_path / name, name, gzip.compress(data, mtime=0))
        clean = seed.source if seed.group else tmp_path / name / "clean-copy" / target.name
        if not seed.group:
            clean.parent.mkdir()
            clean.write_bytes(data)
        assert _summary(target.parent if seed.group else target) == _summary(clean), name


def test_a_recognizer_that_raises_leaves_the_others_to_judge(tmp_path, monkeypatch):
    """One recognizer's slip on a damaged head (registry.recognize) neither ends a tree nor hides the file's format."""
    import dataclasses

    def slips(head):
        raise TypeError("'list' object has no attribute 'get'")

    formats = tuple(dataclasses.replace(f, recognize=slips) if f.name == "jmh" else f for f in registry.formats())
    monkeypatch.setattr(registry, "formats", lambda: formats)
    shutil.copyfile(CLEAN, tmp_path / CLEAN.name)
    shutil.copyfile(DATA / "jmh" / "arraycopy-jmh-result.json", tmp_path / "jmh.json")
    skipped: list = []
    loaded = readers.read_paths([tmp_path], skipped=skipped)
    assert [item.path for item in loaded] == [str(tmp_path / CLEAN.name)]
    assert [s.path.name for s in skipped] == ["jmh.json"] and not skipped[0].unreadable


@pytest.mark.parametrize("text, start", [
    ('{"a": 1}', 0), ('\n \n{"a": 1}', 3), ('{\r"a": 1}', 0), ("[\r\n1]", 0), ("[\n1]", 0), ("{}", 0),
    ('[0] MPI startup(): Intel(R) MPI Library\nsrun: job 1 queued\n{\n "a": 1}', 59),
    ("[0] MPI startup(): library kind: release", None), ("[1]", None), ("abc\ndef", None), ("", None),
    ("\n" * 5_000_000 + "{}", 5_000_000), ("x\n" * (MAX_PREAMBLE_LINES - 1) + "{}", 2 * MAX_PREAMBLE_LINES - 2),
    ("x\n" * MAX_PREAMBLE_LINES + "{}", None)])
def test_json_start_looks_past_launcher_lines_only_within_its_bound(text, start):
    """decode.json_start: where a JSON document opens, found line by line (never splitting the whole text)."""
    from twelveways.readers.decode import json_start

    assert json_start(text) == start


@pytest.mark.parametrize("fault, caught_by", [(RuntimeError, "hard"), (KeyError, "safety net")])
def test_the_campaign_catches_a_reader_that_raises(fault, caught_by, tmp_path, monkeypatch):
    """The harness itself: a reader raising what it should not fails the campaign (a traceback: at once; an
    exception only the framework's safety net turned into a line: reported as such)."""
    import dataclasses

    def broken(path):
        raise fault("boom")

    formats = tuple(dataclasses.replace(f, read=broken) if f.name == "jmh" else f for f in registry.formats())
    monkeypatch.setattr(registry, "formats", lambda: formats)
    monkeypatch.setattr(sys.modules[__name__], "EXAMPLES", 3)
    seed = next(s for s in SEEDS if s.id == "jmh")
    if caught_by == "hard":
        with pytest.raises(AssertionError, match="RuntimeError"):
            run_seed(seed, seed.source, tmp_path)
    else:
        nets = run_seed(seed, seed.source, tmp_path)
        assert nets and all("KeyError" in n for n in nets)


@pytest.mark.parametrize("content, says", [
    (json.dumps({"k" * 30_000: 1, "mode": "avgt"}).encode(), "JSON with top-level keys ['kkkk"),
    (CLEAN.read_text().encode("utf-16"), "UTF-16 text"),
    (CLEAN.read_text().encode("utf-16-le"), "UTF-16 text")], ids=["30 KB key", "UTF-16", "UTF-16 without BOM"])
def test_a_file_of_no_format_is_one_short_line_that_says_what_it_looks_like(content, says, tmp_path):
    odd = tmp_path / "tree" / "odd.json"
    odd.parent.mkdir()
    odd.write_bytes(content)
    with pytest.raises(AuditInputError) as caught:
        readers.read_paths([odd])
    assert says in str(caught.value) and not message_problems(str(caught.value), (str(odd),)), str(caught.value)
    assert len(str(caught.value)) < 1000
    shutil.copyfile(CLEAN, tmp_path / "tree" / CLEAN.name)
    skipped: list = []
    readers.read_paths([odd.parent], skipped=skipped)
    assert [(s.path, s.unreadable) for s in skipped] == [(odd, False)] and says in skipped[0].why


# --- reader faults the campaigns found (reader modules are their owners' to fix) ---------------------

def test_csv_nan_in_an_integer_column_is_an_error_naming_line_and_column(generated, tmp_path):
    rows = (generated / "csv" / "samples.csv").read_text().splitlines()
    header = rows[0].split(",")
    cells = rows[1].split(",")
    cells[header.index("seed")] = "NaN"
    damaged = tmp_path / "samples.csv"
    damaged.write_text("\n".join([rows[0], ",".join(cells), *rows[2:]]) + "\n")
    with pytest.raises(AuditInputError) as caught:
        readers.read_paths([damaged])
    assert SAFETY_NET not in caught.value.one_line() and "column 'seed' line 2: 'NaN' is not an integer" in \
        str(caught.value), caught.value.one_line()


def test_launcher_lines_with_commas_are_no_csv_table():
    head = Head(("[0] MPI startup(): Intel(R) MPI Library, Version 2021.6  Build 20220227\n"
                 "[0] MPI startup(): Copyright (C) 2003-2022 Intel Corporation, All rights reserved.\n").encode())
    assert registry.recognize(head) is None
