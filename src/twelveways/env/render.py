"""Human views of an environment capture: a terminal summary and an SC-style Artifact Description.

Kept apart from the probes so that capturing never depends on presentation.  Both views show
unreadable fields with their reason rather than hiding them.
"""

from __future__ import annotations

import functools

import os
import string
import sys
from collections.abc import Mapping
from pathlib import Path

from ..escape import markdown_fence, markdown_text
from .hashing import VOLATILE, changes
from .probe import is_unavailable, unavailable, unavailable_fields
from .store import write_text_atomically

#: Packages named in the summary and the artifact description (all packages are captured).
KEY_PACKAGES = ("numpy", "scipy", "pandas", "xarray", "h5netcdf", "statsmodels", "scikit-learn", "torch",
                "mpi4py", "mpich", "mlcommons-loadgen", "mlperf-logging", "snakemake",
                "snakemake-executor-plugin-slurm", "papermill", "nbconvert", "jupytext", "psutil",
                "py-cpuinfo", "threadpoolctl", "matplotlib", "seaborn", "twelveways")

_MISSING = object()


def get(capture: Mapping, path: str):
    """The value at a dotted path, or an ``unavailable`` value saying where the path broke."""
    node = capture
    walked = []
    for key in path.split("."):
        if is_unavailable(node):
            return node
        if not isinstance(node, Mapping) or node.get(key, _MISSING) is _MISSING:
            return unavailable(f"not in capture: {'.'.join(walked + [key])}")
        node = node[key]
        walked.append(key)
    return node


def fmt(value) -> str:
    """One-line text for a field; unavailable fields show their reason."""
    if is_unavailable(value):
        return f"unavailable ({value['unavailable']})"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v) for v in value) or "none"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {fmt(v)}" for k, v in value.items()) or "none"
    return str(value)


def _probe(path: str):
    """Decorator for a summary line: the capture's value at ``path``, or why it is unavailable, so each
    line builder only formats a value that was captured."""
    def wrap(describe):
        @functools.wraps(describe)
        def line(capture) -> str:
            value = get(capture, path)
            return fmt(value) if is_unavailable(value) else describe(value)
        return line
    return wrap


def _bytes(value) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return fmt(value)
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= scale:
            return f"{value / scale:.1f} {unit}"
    return f"{value} B"


@_probe("hardware.caches")
def _caches(caches) -> str:
    parts = []
    for name, info in caches.items():
        if is_unavailable(info):
            parts.append(f"{name} {fmt(info)}")
        else:
            size = info.get("size") or ""
            total = info.get("total")
            total_text = f" (total {total})" if isinstance(total, str) else ""
            parts.append(f"{name} {size}{total_text}".strip())
    return "; ".join(parts)


def _topology(capture) -> str:
    cpu = lambda key: fmt(get(capture, f"hardware.cpu.{key}"))  # noqa: E731
    return (f"{cpu('sockets')} socket(s) x {cpu('cores_per_socket')} core(s) x {cpu('threads_per_core')} "
            f"thread(s); {cpu('physical_cores')} physical cores, {cpu('logical_cpus')} logical CPUs")


def _usable(capture) -> str:
    usable = get(capture, "hardware.cpu.usable_cpus")
    return fmt(usable) if is_unavailable(usable) else f"{len(usable)} ({fmt(usable)})"


@_probe("hardware.cpu.smt")
def _smt(smt) -> str:
    return f"{'active' if smt.get('active') else 'inactive'} (control: {fmt(smt.get('control'))})"


@_probe("hardware.frequency")
def _frequency(freq) -> str:
    values = [freq.get(k) for k in ("governor", "scaling_driver", "min_mhz", "max_mhz")]
    if all(is_unavailable(v) for v in values):
        return fmt(values[0])  # one reason is enough when nothing could be read
    return (f"governor {fmt(values[0])}; driver {fmt(values[1])}; min {fmt(values[2])} MHz; "
            f"max {fmt(values[3])} MHz")


@_probe("hardware.boost")
def _boost(boost) -> str:
    return f"{'enabled' if boost.get('enabled') else 'disabled'} ({boost.get('source')})"


@_probe("hardware.virtualization")
def _virt(virt) -> str:
    return f"VM: {virt.get('vm')}; container: {virt.get('container')}"


@_probe("compilers.used")
def _compiler_used(used) -> str:
    march = used.get("march_native")
    march_text = "" if march == "not used" else f"; -march=native = {fmt(march)}"
    return f"{used.get('cc')} {used.get('cflags')} [{fmt(used.get('version'))}]{march_text}"


@_probe("blas_openmp.threadpools")
def _threadpools(pools) -> str:
    return "; ".join(f"{p.get('internal_api')} {p.get('version') or '(version unknown)'} "
                     f"[{p.get('prefix')}] {p.get('num_threads')} threads" for p in pools) or "none loaded"


@_probe("gpus")
def _gpus(gpus) -> str:
    if not gpus.get("devices"):
        return f"none found ({gpus.get('note', '')})"
    return "; ".join(f"{d.get('index')}: {d.get('name')} ({d.get('memory.total')} MiB, driver {d.get('driver_version')})"
                     for d in gpus["devices"])


class _RecordFormatter(string.Formatter):
    """Fills a summary template from a captured record: a missing field reads "unknown", a number takes the
    template's format spec, anything else is shown as :func:`fmt` shows it."""

    def get_value(self, key, args, kwargs):
        return kwargs.get(key)

    def format_field(self, value, format_spec):
        if value is None:
            return "unknown"
        if format_spec and isinstance(value, (int, float)) and not isinstance(value, bool):
            return format(value, format_spec)
        return fmt(value)


def _summary_line(path: str, template: str):
    """A summary line for the captured record at ``path`` (or why it is unavailable), filled from ``template``."""
    return _probe(path)(lambda record: _RecordFormatter().format(template, **record))


_torch = _summary_line("torch", "{version}; {num_threads} intra-op threads; CPU capability {cpu_capability}; "
                                "CUDA {cuda_version}")
_scheduler = _summary_line("scheduler", "{name}; job {job_id}; nodes {node_list}; launcher {launcher}")
_timer = _summary_line("timer", "{timer} ({implementation}): resolution {resolution_ns:.0f} ns, "
                                "overhead {overhead_ns:.0f} ns per call")


def _git(capture) -> str:
    commit, dirty = get(capture, "git.commit"), get(capture, "git.dirty")
    if is_unavailable(commit):
        return fmt(commit)
    return f"{commit}{' (uncommitted changes)' if dirty is True else ''}"


def in_time_order(load: Mapping) -> list[tuple[str, Mapping]]:
    """The load snapshots start first, end last (a JSON file may hold them alphabetically: end, start)."""
    rank = {"start": 0, "end": 2}
    return sorted(((label, snap) for label, snap in load.items() if isinstance(snap, Mapping)),
                  key=lambda item: (rank.get(str(item[0]), 1), str(item[1].get("utc", ""))))


@_probe("load")
def _load(load) -> str:
    parts = []
    for label, snap in in_time_order(load):
        avg = snap.get("loadavg")
        avg_text = fmt(avg) if is_unavailable(avg) else f"{avg['1min']:.2f}/{avg['5min']:.2f}/{avg['15min']:.2f}"
        parts.append(f"{label} {snap.get('utc')}: load {avg_text} (1/5/15 min), {fmt(snap.get('processes'))} processes, "
                     f"{fmt(snap.get('running'))} running")
    return "; ".join(parts)


def summary_rows(capture: Mapping) -> list[tuple[str, str]]:
    """(label, text) rows of the human-readable summary."""
    os_ = lambda key: fmt(get(capture, f"os.{key}"))  # noqa: E731
    pkgs = get(capture, "python.packages")
    return [
        ("Host", fmt(get(capture, "host.hostname"))),
        ("CPU", f"{fmt(get(capture, 'hardware.cpu.model'))} ({fmt(get(capture, 'hardware.cpu.vendor'))}, "
                f"{fmt(get(capture, 'hardware.cpu.architecture'))})"),
        ("Topology", _topology(capture)),
        ("Usable CPUs", _usable(capture)),
        ("SMT", _smt(capture)),
        ("Caches", _caches(capture)),
        ("NUMA nodes", fmt(get(capture, "hardware.numa.count"))),
        ("Memory", _bytes(get(capture, "hardware.memory.total_bytes"))),
        ("Frequency", _frequency(capture)),
        ("Turbo/boost", _boost(capture)),
        ("Virtualization", _virt(capture)),
        ("OS", f"{os_('distribution')}; kernel {os_('kernel_release')}; glibc {os_('glibc')}"),
        ("C compiler (used)", _compiler_used(capture)),
        ("gcc", fmt(get(capture, "compilers.gcc.version"))),
        ("MPI wrapper", f"{fmt(get(capture, 'compilers.mpicc.version'))}: {fmt(get(capture, 'compilers.mpicc.show'))}"),
        ("MPI library", fmt(get(capture, "mpi.library.library_version"))),
        ("MPI launcher", f"{fmt(get(capture, 'mpi.launcher.path'))} (version {fmt(get(capture, 'mpi.launcher.version'))})"),
        ("BLAS/OpenMP", _threadpools(capture)),
        ("Python", f"{fmt(get(capture, 'python.version'))} ({fmt(get(capture, 'python.executable'))}); "
                   f"{len(pkgs) if isinstance(pkgs, Mapping) else fmt(pkgs)} packages"),
        ("numpy", fmt(get(capture, "python.packages.numpy"))),
        ("torch", _torch(capture)),
        ("LoadGen", fmt(get(capture, "loadgen.version"))),
        ("GPUs", _gpus(capture)),
        ("Scheduler", _scheduler(capture)),
        ("Timer", _timer(capture)),
        ("Git", _git(capture)),
        ("Load", _load(capture)),
        ("Captured", f"{fmt(get(capture, 'time.utc'))} UTC (local zone {fmt(get(capture, 'time.timezone'))}) "
                     f"in {fmt(get(capture, 'capture_seconds'))} s"),
        ("Unreadable fields", str(len(unavailable_fields(capture)))),
        ("Environment hash", fmt(get(capture, "hash"))),
    ]


def print_summary(capture: Mapping, file=None) -> None:
    """A two-column table on stdout (rich; plain text when not a terminal)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(file=file or sys.stdout, width=None if (file or sys.stdout).isatty() else 160)
    table = Table(title="Twelve Ways: environment", show_header=False, box=None, pad_edge=False)
    table.add_column("field", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    for label, text in summary_rows(capture):
        table.add_row(escape(label), escape(text))
    console.print(table)


def changed_during_run(start: Mapping, end: Mapping) -> tuple[str, str]:
    """(sentence, kind) on whether the environment changed between a run's start and end captures, judged afresh
    by the hash's rules: free memory, load and timer readings never raise it, and each field that did change is
    shown with its value at start and end (an older end capture's stored verdict is not trusted)."""
    found = changes(start, end, limit=20)
    if not found:
        return ("The environment did not change during the run: every field of the environment hash is the same at "
                "start and end (moment-to-moment readings such as free memory and load are left out).", "note")

    def short(value) -> str:
        text = fmt(value)
        return text if len(text) <= 60 else text[:57] + "..."

    listed = "; ".join(f"{path}: {short(before)} -> {short(after)}" for path, before, after in found)
    return f"The environment CHANGED during the run ({len(found)} field(s) of the hash): {listed}", "warning"


# --------------------------------------------------------------------------- artifact description

def _table(rows) -> list[str]:
    lines = ["| Item | Value |", "|---|---|"]
    lines += [f"| {markdown_text(k)} | {markdown_text(v)} |" for k, v in rows]
    return lines + [""]


def _datasets(config: Mapping | None) -> list[str]:
    lines = ["- **PRK kernels**: synthetic inputs generated inside each program from its size arguments "
             "(no files); every kernel validates its own result against the PRK formula."]
    for stage in ("train", "infer"):
        section = (config or {}).get(stage) if isinstance(config, Mapping) else None
        if isinstance(section, Mapping):
            named = {k: v for k, v in section.items() if "data" in k.lower()}
            text = "; ".join(f"{markdown_text(k)} = {markdown_text(fmt(v))}" for k, v in named.items()) \
                or "see its config section below"
            lines.append(f"- **{stage}** stage datasets: {text}.")
    lines.append("- Datasets are prepared by the workflow into `data/` (untimed reformatting); `data/reference/` "
                 "holds a small reference result set so readers can re-run the notebooks without benchmarking.")
    return lines + [""]


def _parameters(config: Mapping | None) -> list[str]:
    if not isinstance(config, Mapping) or not config:
        return ["No configuration was given to the capture; the validated configuration of a run is "
                "`results/config.json`.", ""]
    import yaml

    from ..results import canonical_hash

    measurement = config.get("measurement", {}) if isinstance(config.get("measurement"), Mapping) else {}
    stages = config.get("stages", {}) if isinstance(config.get("stages"), Mapping) else {}
    rows = [("Profile", config.get("profile", "unknown")), ("Seed (drives every random choice)", config.get("seed", "unknown")),
            ("Stages", ", ".join(f"{k}: {'on' if v else 'off'}" for k, v in stages.items()) or "unknown")]
    rows += [(f"measurement.{k}", v) for k, v in measurement.items()]
    rows.append(("Config hash", canonical_hash(dict(config))))
    reasons = config.get("subset_reasons")
    if isinstance(reasons, Mapping) and any(str(v).strip() for v in reasons.values()):
        rows += [(f"Reason for subset: {k}", v) for k, v in reasons.items() if str(v).strip()]
    dump = yaml.safe_dump(dict(config), sort_keys=True, default_flow_style=False).rstrip()
    return _table(rows) + ["Full validated configuration (defaults filled):", ""] + markdown_fence(dump, "yaml") + [""]


def _notes(capture: Mapping) -> list[str]:
    notes = [f"- **Environment hash** `{fmt(get(capture, 'hash'))}`: sha256 of the canonical JSON of "
             "`results/environment.json` without its volatile fields; every results file carries it as "
             "`environment_hash`, and results from different environments are only merged on request.",
             "- Fields left out of the hash: " + "; ".join(f"`{k}` ({v})" for k, v in VOLATILE.items()) + ".",
             f"- **Project commit** {_git(capture)}."]
    if get(capture, "git.dirty") is True:
        notes.append("- The working tree had uncommitted changes: the commit alone does not reproduce this run.")
    notes.append(f"- **Load** {_load(capture)}.")
    notes.append(f"- **Timer** {_timer(capture)}; intervals under 10x the resolution or with over 5% timer overhead "
                 "are flagged in the results.")
    governor = get(capture, "hardware.frequency.governor")
    if is_unavailable(governor):
        notes.append("- The frequency governor could not be read, so frequency scaling was neither checked nor "
                     f"controlled ({governor['unavailable']}); expect extra run-to-run variation.")
    elif governor != "performance":
        notes.append(f"- Frequency governor {markdown_text(governor)} (not `performance`): clock speed may vary during runs.")
    boost = get(capture, "hardware.boost")
    if isinstance(boost, Mapping) and boost.get("enabled") is True:
        notes.append("- Turbo/boost was enabled: clock speed depends on temperature and the load of other cores.")
    virt = get(capture, "hardware.virtualization")
    if isinstance(virt, Mapping) and (virt.get("vm") not in ("none", None) or virt.get("container") not in ("none", None)):
        notes.append(f"- Ran virtualized ({_virt(capture)}): other tenants may share the hardware; the hardware "
                     "fields describe what the guest sees.")
    comparison = capture.get("comparison")
    if isinstance(comparison, Mapping):
        same = comparison.get("same_environment")
        notes.append(f"- End-of-run capture {'matches' if same else 'differs from'} the start "
                     f"({markdown_text(', '.join(map(str, comparison.get('differences', [])))) or 'no differences'}).")
    missing = unavailable_fields(capture)
    if missing:
        notes.append(f"- {len(missing)} field(s) could not be read on this machine:")
        notes += [f"  - {markdown_text(path)}: {markdown_text(reason)}" for path, reason in missing]
    return notes + [""]


def _identification(capture: Mapping) -> list[str]:
    return [
        "# Artifact Description: Twelve Ways",
        "",
        "Generated from `results/environment.json` by `twelveways.env.render`; every value below was read "
        "from the machine that ran the benchmarks, and a value that could not be read says why.",
        "",
        "## A.1 Artifact identification",
        "",
        "Twelve Ways is a reproducible benchmarking artifact: one command captures this environment, builds "
        "and runs the Parallel Research Kernels (C serial/OpenMP/MPI, NumPy, mpi4py), a small PyTorch "
        "time-to-accuracy training benchmark and an MLPerf LoadGen inference benchmark, then analyses every "
        "sample with parameterized notebooks and checks the results against the twelve SC15 rules of "
        "scientific benchmarking (Hoefler and Belli) and the twelve data-science benchmarking fallacies.",
        "",
        *_table([("Project commit", _git(capture)), ("Environment hash", fmt(get(capture, "hash"))),
                 ("Captured (UTC)", fmt(get(capture, "time.utc"))), ("Time zone", fmt(get(capture, "time.timezone"))),
                 ("Host", fmt(get(capture, "host.hostname"))), ("twelveways version", fmt(get(capture, "twelveways_version")))]),
    ]


def _hardware(capture: Mapping) -> list[str]:
    cpu = lambda key: fmt(get(capture, f"hardware.cpu.{key}"))  # noqa: E731
    return [
        "## A.2 Hardware",
        "",
        *_table([("CPU model", cpu("model")), ("Vendor / architecture", f"{cpu('vendor')} / {cpu('architecture')}"),
                 ("Topology", _topology(capture)), ("Usable CPUs (affinity)", _usable(capture)),
                 ("SMT", _smt(capture)), ("Caches", _caches(capture)),
                 ("NUMA nodes", fmt(get(capture, "hardware.numa.count"))),
                 ("Memory", _bytes(get(capture, "hardware.memory.total_bytes"))),
                 ("cgroup limits", fmt(get(capture, "hardware.memory.cgroup"))),
                 ("Frequency governor, driver, min/max", _frequency(capture)),
                 ("Turbo / boost", _boost(capture)), ("Virtualization", _virt(capture)),
                 ("GPUs", _gpus(capture)),
                 ("CPU flags", fmt(get(capture, "hardware.cpu.flags")))]),
    ]


def _software(capture: Mapping) -> list[str]:
    os_ = lambda key: fmt(get(capture, f"os.{key}"))  # noqa: E731
    value = lambda path: fmt(get(capture, path))  # noqa: E731
    return [
        "## A.3 Software environment",
        "",
        *_table([("Operating system", os_("distribution")), ("Kernel", os_("kernel_release")),
                 ("glibc", os_("glibc")), ("Clock source", os_("clocksource")),
                 ("C compiler and flags used", _compiler_used(capture)),
                 ("OpenMP version (compiler)", value("compilers.used.openmp_version")),
                 ("gcc", value("compilers.gcc.version")),
                 ("MPI compiler wrapper", f"{value('compilers.mpicc.version')}: {value('compilers.mpicc.show')}"),
                 ("MPI library", value("mpi.library.library_version")),
                 ("MPI standard / mpi4py", f"{value('mpi.library.standard')} / {value('mpi.library.mpi4py_version')}"),
                 ("MPI launcher", f"{value('mpi.launcher.path')} ({value('mpi.launcher.process_manager')} "
                                  f"{value('mpi.launcher.version')})"),
                 ("BLAS / OpenMP runtimes", _threadpools(capture)),
                 ("Python", f"{value('python.version')} ({value('python.implementation')}, "
                            f"{value('python.compiler')})"),
                 ("PyTorch", _torch(capture)),
                 ("MLPerf LoadGen", value("loadgen.version")),
                 ("Batch system", _scheduler(capture))]),
    ]


def _packages(capture: Mapping) -> list[str]:
    """The key packages as a table, then every installed package folded away."""
    packages = get(capture, "python.packages")
    if not isinstance(packages, Mapping):
        return ["Key packages:", "", *_table([("packages", fmt(packages))])]
    return ["Key packages:", "",
            *_table([(name, fmt(get(capture, f"python.packages.{name}"))) for name in KEY_PACKAGES]),
            f"<details><summary>All {len(packages)} installed Python packages</summary>", "",
            ", ".join(f"{k}=={v}" for k, v in packages.items()), "", "</details>", ""]


def _settings(capture: Mapping) -> list[str]:
    """The environment variables the capture saw and, when known, torch's build configuration."""
    env_vars = get(capture, "environment_variables")
    lines = ["Relevant environment variables (threads, BLAS, MPI, CUDA, SLURM) as seen by the capture job "
             "(Snakemake sets the `*_NUM_THREADS` variables of each job to its thread count):", ""]
    if isinstance(env_vars, Mapping) and env_vars:
        lines += [*markdown_fence("\n".join(f"{k}={v}" for k, v in env_vars.items())), ""]
    else:
        lines += [f"{'none set' if isinstance(env_vars, Mapping) else fmt(env_vars)}", ""]
    torch_config = get(capture, "torch.config")
    if isinstance(torch_config, str):
        lines += ["<details><summary>PyTorch build configuration</summary>", "",
                  *markdown_fence(torch_config.rstrip()), "", "</details>", ""]
    return lines


_EXECUTION = [
    "## A.5 Installation and execution",
    "",
    "On a fresh clone, two commands (both create `.venv` from the pinned lock `envs/requirements.lock`):",
    "",
    "```sh",
    "make report    # runs the whole workflow (snakemake --cores all) and prints the report's path",
    "make test      # runs the test suite",
    "```",
    "",
    "With the environment active: `snakemake --cores all` (quick profile, `config/config.yaml`) or "
    "`snakemake --cores all --configfile config/full.yaml` (paper grade). On a SLURM cluster: "
    "`snakemake --profile profiles/slurm`. Outputs: `results/` (raw samples, NetCDF4), "
    "`reports/report.html`, `reports/checklist.md`, and this file.",
    "",
]


def render_artifact_description(capture: Mapping, config: Mapping | None = None) -> str:
    """Markdown in the manner of an SC Artifact Description appendix."""
    lines = [
        *_identification(capture),
        *_hardware(capture),
        *_software(capture),
        *_packages(capture),
        *_settings(capture),
        "## A.4 Datasets and inputs",
        "",
        *_datasets(config),
        *_EXECUTION,
        "## A.6 Experiment parameterization",
        "",
        *_parameters(config),
        "## A.7 Reproducibility notes",
        "",
        *_notes(capture),
    ]
    return "\n".join(lines)


def write_artifact_description(capture: Mapping, path: str | os.PathLike, config: Mapping | None = None) -> Path:
    """Render and write atomically (temporary file, then ``os.replace``)."""
    return write_text_atomically(path, render_artifact_description(capture, config))
