"""Environment capture (hardware, software, scheduler per job).

One real capture through the CLI (``python -m twelveways.env --json``, made once per test run: tests/conftest.py)
and one in-process capture are shared by the tests; everything else works on sections or on copies,
so the file stays fast.
"""

from __future__ import annotations

import copy
import importlib.metadata
import io
import json
import re
import os
import shutil
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from twelveways import env
from twelveways.env import machine, probe, render, runtimes, system, toolchain
from twelveways.errors import ResultsError
from twelveways.escape import markdown_text

#: Every field the capture must hold: a real value, or {"unavailable": "<reason>"}.
REQUIRED_FIELDS = [
    "format", "hash", "hash_excludes", "capture_seconds", "twelveways_version",
    "host.hostname",
    "time.utc", "time.timezone", "time.utc_offset",
    "hardware.cpu.model", "hardware.cpu.vendor", "hardware.cpu.architecture", "hardware.cpu.sockets",
    "hardware.cpu.cores_per_socket", "hardware.cpu.threads_per_core", "hardware.cpu.physical_cores",
    "hardware.cpu.logical_cpus", "hardware.cpu.usable_cpus", "hardware.cpu.smt", "hardware.cpu.flags",
    "hardware.cpu.cpuinfo",
    "hardware.caches.L1d", "hardware.caches.L1i", "hardware.caches.L2", "hardware.caches.L3",
    "hardware.numa.count", "hardware.memory.total_bytes", "hardware.memory.cgroup",
    "hardware.frequency.governor", "hardware.frequency.scaling_driver", "hardware.frequency.min_mhz",
    "hardware.frequency.max_mhz", "hardware.boost", "hardware.virtualization.vm",
    "hardware.virtualization.container",
    "os.distribution", "os.kernel_release", "os.glibc", "os.clocksource",
    "load.start.loadavg", "load.start.processes", "load.start.running", "load.start.utc",
    "compilers.gcc.version", "compilers.cc.version", "compilers.used.cc", "compilers.used.cflags",
    "compilers.used.version", "compilers.used.march_native", "compilers.mpicc.show", "compilers.mpicc.version",
    "mpi.library.library_version", "mpi.launcher.path", "mpi.launcher.version", "mpi.launcher_in_use",
    "blas_openmp.threadpools",
    "python.version", "python.executable", "python.packages",
    "torch.version", "torch.config", "torch.num_threads",
    "loadgen.version",
    "environment_variables",
    "scheduler.name", "scheduler.job_id", "scheduler.node_list", "scheduler.launcher",
    "gpus",
    "timer.resolution_ns", "timer.overhead_ns",
    "git.commit", "git.dirty",
]


def _lookup(capture, path):
    node = capture
    for key in path.split("."):
        if env.is_unavailable(node):
            return node
        assert isinstance(node, dict) and key in node, f"{path}: missing (stopped at {key!r})"
        node = node[key]
    return node


@pytest.fixture(scope="module")
def cli_capture(machine_capture):
    """The run's one capture through the CLI (tests/conftest.py); tests change only copies of it."""
    return machine_capture.capture


@pytest.fixture(scope="module")
def inprocess_capture(machine_capture):
    """A capture in this process, with the environment variables the CLI's ran with (tests since may have
    changed this process's)."""
    with mock.patch.dict(os.environ, machine_capture.environ, clear=True):
        return env.capture()


def test_cli_json_shows_the_acceptance_fields(cli_capture, root):
    cpu_model = cli_capture["hardware"]["cpu"]["model"]
    assert isinstance(cpu_model, str) and cpu_model.strip()
    proc_models = [line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.lower().startswith("model name")]
    if proc_models:
        assert cpu_model == proc_models[0]
    assert cli_capture["os"]["kernel_release"] == os.uname().release
    gcc = subprocess.run(["gcc", "-dumpfullversion", "-dumpversion"], capture_output=True, text=True).stdout.strip()
    assert gcc and gcc in cli_capture["compilers"]["gcc"]["version"]
    mpich = importlib.metadata.version("mpich")
    assert mpich in cli_capture["mpi"]["library"]["library_version"]
    assert cli_capture["python"]["packages"]["numpy"] == importlib.metadata.version("numpy")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True)
    if head.returncode == 0:
        assert cli_capture["git"]["commit"] == head.stdout.strip()
        assert isinstance(cli_capture["git"]["dirty"], bool)
    else:
        assert env.is_unavailable(cli_capture["git"]["commit"])


@pytest.mark.parametrize("path", REQUIRED_FIELDS)
def test_required_field_present_or_explained(cli_capture, path):
    value = _lookup(cli_capture, path)
    if env.is_unavailable(value):
        assert value["unavailable"].strip(), f"{path}: unavailable without a reason"
    else:
        assert value is not None and value != "", f"{path}: empty"


def test_every_unavailable_field_has_a_reason(cli_capture):
    for path, reason in env.unavailable_fields(cli_capture):
        assert reason.strip() and reason != "unknown reason", path


def test_software_facts_match_this_environment(cli_capture):
    assert cli_capture["python"]["version"] == ".".join(map(str, sys.version_info[:3]))
    assert cli_capture["torch"]["version"] == importlib.metadata.version("torch")
    assert "PyTorch built with" in cli_capture["torch"]["config"]
    assert cli_capture["loadgen"]["version"] == importlib.metadata.version("mlcommons-loadgen")
    apis = {pool["user_api"] for pool in cli_capture["blas_openmp"]["threadpools"]}
    assert "blas" in apis
    used = cli_capture["compilers"]["used"]
    assert (used["cc"], used["cflags"]) == ("gcc", "-O3 -march=native")  # no config given: the defaults


def test_hash_is_stable_across_two_captures(cli_capture, inprocess_capture):
    assert cli_capture["hash"] == inprocess_capture["hash"], env.differences(cli_capture, inprocess_capture)
    assert cli_capture["hash"] == env.environment_hash(cli_capture)


def test_hash_ignores_volatile_fields_and_sees_real_changes(cli_capture):
    volatile = copy.deepcopy(cli_capture)
    volatile["time"]["utc"] = "1999-01-01T00:00:00+00:00"
    volatile["load"] = {"start": env.load_at("start"), "end": env.load_at("end")}
    volatile["timer"]["overhead_ns"] = 12345.0
    volatile["host"]["hostname"] = "another-container"
    volatile["scheduler"] = {"name": "slurm", "job_id": "42", "node_list": "n[1-2]", "launcher": "srun"}
    volatile["environment_variables"]["SLURM_JOB_ID"] = "42"
    assert env.environment_hash(volatile) == cli_capture["hash"]

    changed = copy.deepcopy(cli_capture)
    changed["os"]["kernel_release"] = "0.0.0-other"
    assert env.environment_hash(changed) != cli_capture["hash"]
    assert env.differences(cli_capture, changed) == ["os.kernel_release"]
    binding = copy.deepcopy(cli_capture)
    binding["environment_variables"]["OMP_PROC_BIND"] = "close"
    assert env.environment_hash(binding) != cli_capture["hash"]
    # thread counts are per job (Snakemake sets them to each job's threads): not the environment
    threads = copy.deepcopy(cli_capture)
    threads["environment_variables"]["OMP_NUM_THREADS"] = "97"
    threads["torch"]["num_threads"] = 97
    for pool in threads["blas_openmp"]["threadpools"]:
        pool["num_threads"] = 97
    assert env.environment_hash(threads) == cli_capture["hash"]


def test_moment_to_moment_readings_change_neither_the_hash_nor_the_run_alarm(cli_capture):
    """Free memory (the machine's and each NUMA node's, which hotplug and ballooning move on VMs), load and timer
    readings differ between a run's start and end by themselves: no hash change, no "CHANGED" alarm; a real
    change is named with its values at start and end."""
    end = copy.deepcopy(cli_capture)
    end["hardware"]["memory"]["available_bytes"] = 1
    end["hardware"]["numa"]["nodes"] = {"node0": {"cpulist": "0-1", "memory_bytes": 7}}
    start = copy.deepcopy(end)
    start["hardware"]["numa"]["nodes"]["node0"]["memory_bytes"] = 7745003520
    start["hardware"]["memory"]["available_bytes"] = 24438915072
    end["load"] = {"start": env.load_at("start"), "end": env.load_at("end")}
    end["timer"]["overhead_ns"] = 999.0
    assert env.environment_hash(start) == env.environment_hash(end)
    text, kind = render.changed_during_run(start, end)
    assert kind == "note" and "did not change" in text
    end["os"]["kernel_release"] = "0.0.0-other"
    end["hardware"]["numa"]["nodes"]["node0"]["cpulist"] = "0"
    assert env.environment_hash(start) != env.environment_hash(end)
    text, kind = render.changed_during_run(start, end)
    assert kind == "warning" and text.startswith("The environment CHANGED during the run (2 field(s) of the hash)")
    assert "hardware.numa.nodes.node0.cpulist: 0-1 -> 0" in text
    assert f"os.kernel_release: {start['os']['kernel_release']} -> 0.0.0-other" in text and "memory" not in text


def test_hash_does_not_depend_on_where_the_project_lives(cli_capture, monkeypatch):
    assert str(env.PROJECT_ROOT) in json.dumps(cli_capture)  # paths such as python.executable
    moved = json.loads(json.dumps(cli_capture).replace(str(env.PROJECT_ROOT), "/elsewhere/checkout"))
    monkeypatch.setattr(probe, "PROJECT_ROOT", Path("/elsewhere/checkout"))
    assert env.environment_hash(moved) == cli_capture["hash"]


def test_unreadable_field_gets_a_reason(monkeypatch):
    def denied():
        raise PermissionError("permission denied: /etc/os-release")

    monkeypatch.setattr(system, "read_os_release", denied)
    section = env.operating_system()
    assert section["distribution"] == {"unavailable": "PermissionError: permission denied: /etc/os-release"}
    assert env.is_unavailable(section["version_id"])
    assert section["kernel_release"] == os.uname().release  # other fields still read


def test_unreadable_fields_propagate_through_capture(monkeypatch):
    """A failing reader inside capture() leaves the field present, explained, and the rest intact."""
    def no_probe():
        raise env.Unavailable("runtime probe disabled by the test")

    monkeypatch.setattr(runtimes, "probe", no_probe)
    monkeypatch.setattr(system, "read_os_release", lambda: (_ for _ in ()).throw(OSError("disk on fire")))
    capture = env.capture(label="start")
    assert capture["torch"] == {"unavailable": "runtime probe disabled by the test"}
    assert capture["blas_openmp"] == {"unavailable": "runtime probe disabled by the test"}
    assert capture["mpi"]["library"] == {"unavailable": "runtime probe disabled by the test"}
    assert capture["os"]["distribution"] == {"unavailable": "OSError: disk on fire"}
    paths = dict(env.unavailable_fields(capture))
    assert {"torch", "blas_openmp", "mpi.library", "os.distribution"} <= set(paths)
    assert isinstance(capture["hardware"]["cpu"]["model"], str)
    assert "OSError: disk on fire" in render.render_artifact_description(capture)


def test_missing_tools_are_explained(monkeypatch):
    assert probe.safe(toolchain.compiler, "no-such-compiler-tw") == {"unavailable": "no-such-compiler-tw not found on PATH"}
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None if name == "nvidia-smi" else real_which(name, *a, **k))
    gpus = env.gpus()
    assert gpus["count"] == 0 and gpus["devices"] == []
    assert "nvidia-smi not found" in gpus["note"]


def test_nvidia_smi_rows_are_parsed():
    fields = ["index", "name", "driver_version", "memory.total", "pci.bus_id", "compute_cap"]
    text = ("0, NVIDIA H100 80GB HBM3, 550.54.15, 81559, 00000000:19:00.0, 9.0\n"
            "1, NVIDIA H100 80GB HBM3, 550.54.15, 81559, 00000000:3B:00.0, 9.0\n")
    rows = env.parse_nvidia_smi(text, fields)
    assert [r["index"] for r in rows] == [0, 1]
    assert rows[0]["name"] == "NVIDIA H100 80GB HBM3" and rows[0]["memory.total"] == 81559
    with pytest.raises(env.Unavailable, match="columns"):
        env.parse_nvidia_smi("0, only two\n", fields)


def test_build_settings_read_defensively():
    assert env.build_settings(None)["cc"] == "gcc"
    assert env.build_settings({"prk": "nonsense"})["cflags"] == "-O3 -march=native"
    chosen = env.build_settings({"prk": {"cc": "clang", "cflags": "-O2", "openmp_flags": "-fopenmp"}})
    assert (chosen["cc"], chosen["cflags"], chosen["source"]) == ("clang", "-O2", "config prk")
    assert chosen["extra"] == {"openmp_flags": "-fopenmp"}
    assert env.build_settings({"prk": {"build": {"cc": "icx"}}})["cc"] == "icx"


def test_scheduler_records_job_nodes_and_launcher():
    assert env.scheduler({}) == {"name": "none", "job_id": "none", "node_list": "none", "launcher": "none"}
    slurm = env.scheduler({"SLURM_JOB_ID": "77", "SLURM_JOB_NODELIST": "node[01-02]", "SLURM_NTASKS": "2",
                           "SLURM_STEP_ID": "0", "SLURM_STEP_NUM_TASKS": "2", "PMI_RANK": "0"})
    assert (slurm["name"], slurm["job_id"], slurm["node_list"], slurm["launcher"]) == ("slurm", "77", "node[01-02]", "srun")
    assert env.scheduler({"SLURM_JOB_ID": "5"})["launcher"] == "sbatch (batch step)"
    assert env.launcher_in_use({"PMI_RANK": "1", "PMI_SIZE": "2"}) == "mpiexec (hydra/PMI)"


def test_environment_variables_are_selected():
    chosen = env.environment_variables({"OMP_NUM_THREADS": "2", "MKL_DYNAMIC": "0", "I_MPI_PIN": "1", "SLURM_JOB_ID": "3",
                                        "CUDA_VISIBLE_DEVICES": "0", "HOME": "/root", "PATH": "/bin"})
    assert chosen == {"CUDA_VISIBLE_DEVICES": "0", "I_MPI_PIN": "1", "MKL_DYNAMIC": "0", "OMP_NUM_THREADS": "2",
                      "SLURM_JOB_ID": "3"}


def test_write_is_atomic_and_readable(tmp_path, cli_capture):
    path = env.write(cli_capture, tmp_path / "results" / "environment.json")
    assert env.read(path) == json.loads(json.dumps(cli_capture))
    assert [p.name for p in path.parent.iterdir()] == ["environment.json"]  # no temporary file left
    assert oct(path.stat().st_mode & 0o044) != "0o0"  # readable by others like any other output
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ResultsError, match="cannot write"):
        env.write(cli_capture, blocker / "environment.json")
    (tmp_path / "other.json").write_text('{"format": "something else"}')
    with pytest.raises(ResultsError, match="not a twelveways environment capture"):
        env.read(tmp_path / "other.json")


def test_artifact_description_has_the_sections(cli_capture, tmp_path):
    config = {"seed": 12, "profile": "quick", "stages": {"prk": True, "train": False},
              "subset_reasons": {"train": "no time"}, "measurement": {"confidence": 0.95},
              "train": {"datasets": ["digits"]}}
    text = render.render_artifact_description(cli_capture, config)
    for heading in ("## A.1 Artifact identification", "## A.2 Hardware", "## A.3 Software environment",
                    "## A.4 Datasets and inputs", "## A.5 Installation and execution",
                    "## A.6 Experiment parameterization", "## A.7 Reproducibility notes"):
        assert heading in text
    # facts as Markdown shows them: a machine's strings may hold Markdown syntax ("Intel(R) Xeon(R)", "6.1.0+rpt")
    for fact in (cli_capture["hash"], cli_capture["hardware"]["cpu"]["model"], "make report", "make test",
                 "snakemake --cores all", cli_capture["python"]["packages"]["numpy"], "no time", "digits",
                 cli_capture["os"]["kernel_release"]):
        assert markdown_text(fact) in text, fact
    if not env.is_unavailable(cli_capture["git"]["commit"]):
        assert cli_capture["git"]["commit"] in text
    path = render.write_artifact_description(cli_capture, tmp_path / "reports" / "artifact-description.md", config)
    assert path.read_text() == text


def test_artifact_description_escapes_machine_strings(cli_capture):
    """Whatever CPU the tests run on, an Intel-style model name and a kernel release with Markdown syntax
    come out literally (escaped), never as Markdown links, emphasis or raw HTML."""
    capture = copy.deepcopy(cli_capture)
    capture["hardware"]["cpu"]["model"] = "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"
    capture["os"]["kernel_release"] = "6.1.0+rpt-rpi_v8 <b>"
    text = render.render_artifact_description(capture, None)
    assert "| Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz |" in text  # parentheses without brackets link nothing
    assert r"6.1.0+rpt-rpi\_v8 \<b>" in text and not re.search(r"(?<!\\)<b>", text)  # no emphasis, no live tag


def test_summary_is_readable(cli_capture):
    out = io.StringIO()
    render.print_summary(cli_capture, file=out)
    text = out.getvalue()
    assert cli_capture["hardware"]["cpu"]["model"] in text
    assert "Environment hash" in text and cli_capture["hash"] in text


def test_cli_reports_bad_input_in_one_line(tmp_path, capsys):
    assert env.main(["--config", str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: cannot read config") and "\n" not in err
    (tmp_path / "bad.json").write_text("[1, 2]")
    assert env.main(["--config", str(tmp_path / "bad.json")]) == 1
    assert "top level must be a mapping" in capsys.readouterr().err
    assert env.main(["--compare", str(tmp_path / "missing.json")]) == 1
    assert "cannot read environment capture" in capsys.readouterr().err


RECORDED_CPUINFO = ("brand_raw", "arch", "family", "model", "stepping", "cpuinfo_version_string")


@pytest.mark.slow  # py-cpuinfo's own call starts two processes and sleeps a second in the second
def test_the_cpu_facts_without_cpuid_are_py_cpuinfos_own():
    import cpuinfo as py_cpuinfo

    ours, theirs = machine.cpuinfo(), py_cpuinfo.get_cpu_info()
    assert {k: ours.get(k) for k in RECORDED_CPUINFO} == {k: theirs.get(k) for k in RECORDED_CPUINFO}
    assert ours["brand_raw"] and ours["family"] is not None


def test_another_py_cpuinfo_without_those_internals_gets_the_public_call(monkeypatch):
    import cpuinfo as py_cpuinfo

    monkeypatch.delattr(py_cpuinfo.cpuinfo, "_get_cpu_info_internal")
    monkeypatch.setattr(py_cpuinfo, "get_cpu_info", lambda: {"brand_raw": "from the public call"})
    assert machine.cpuinfo() == {"brand_raw": "from the public call"}
