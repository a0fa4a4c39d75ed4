"""The command line as the reader tests drive it: in process, with its exit code and both streams."""

from __future__ import annotations

from pathlib import Path

from twelveways.cli import main

#: Published files of the formats read (one folder per format, its README naming the sources).
DATA = Path(__file__).parent / "data" / "formats"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err
