"""Hypothesis strategies that damage a real result file, and a guarded read to try each damaged file on.

Why: issue 38 asks that ANY mutation of a published file ends in a parsed result or one ``error:``
line, never a traceback, a hang or unbounded memory.  The mutations here are the classes of damage
the held-out battery found (truncation, type swaps, huge and non-finite numbers, deep nesting, long
lines, other encodings, launcher lines, gzip), applied to a real file's bytes.  Every mutation
prints as a short description (never its payload), so a failing example reads as a recipe:
``[Truncate(at=812), Gzip()]``.

:func:`guarded` runs a call in a forked child under a wall-clock limit and an address-space limit,
so a hang or a memory blow-up is a test failure naming the mutation, not a stuck suite.
Other test files may import this module (pytest puts ``tests/`` on ``sys.path`` for its test modules;
tests/test_readers_fuzz.py also inserts it, as tests/test_readers_all_formats.py does).
"""

from __future__ import annotations

import faulthandler
import gzip
import json
import math
import os
import pickle
import resource
import select
import signal
import tempfile
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from hypothesis import strategies as st

#: Lines a launcher or a scheduler writes before a tool's output (Intel MPI, SLURM, modules, a shell trace).
NOISE_LINES = ("[0] MPI startup(): Intel(R) MPI Library, Version 2021.6 Build 20220227 (id: 28877f3f32)",
               "[0] MPI startup(): library kind: release",
               "srun: job 123 queued and waiting for resources",
               "srun: job 123 has been allocated resources",
               "Loading openmpi/4.1.5",
               "+ mpirun -np 4 ./bench",
               "WARNING: There was an error initializing an OpenFabrics device.")
#: Numbers that break readers: 400 digits, beyond float, non-finite, negative, fractional counts.
HOSTILE_NUMBERS = ("1" * 400, "-" + "9" * 400, "1e308", "-1e308", "1e309", "NaN", "nan", "Infinity", "-Infinity",
                   "inf", "-1", "-0.5", "0", "2.5", "1e-320", "18446744073709551616")
#: Bytes that are not UTF-8 (a lone continuation byte, an overlong slash, a surrogate, a truncated sequence).
INVALID_UTF8 = (b"\xff", b"\xfe\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80")
#: latin-1 bytes a tool on another locale writes (micro sign, e acute, degree).
LATIN1 = (b"\xb5s", b"caf\xe9", b"25\xb0C")
MEGABYTE = 1 << 20


@dataclass(frozen=True)
class Mutation:
    """One damage to a file's bytes: ``kind`` and its parameters say what (printed), ``fn`` does it."""

    kind: str
    params: tuple = ()
    fn: Callable[[bytes], bytes] | None = None

    def __call__(self, data: bytes) -> bytes:
        return data if self.fn is None else self.fn(data)

    def __repr__(self) -> str:
        return f"{self.kind}({', '.join(map(str, self.params))})"

    def _repr_pretty_(self, printer, cycle) -> None:  # how Hypothesis prints a failing example's draws
        printer.text(repr(self))


class Blob(bytes):
    """A file's bytes as strategies take them: shown by size, so Hypothesis never prints a megabyte."""

    def __repr__(self) -> str:
        return f"<{len(self):,} bytes>"


def apply(mutations, data: bytes) -> bytes:
    for mutation in mutations:
        data = mutation(data)
    return data


# --- byte-level mutations ------------------------------------------------------------------------

@st.composite
def truncate(draw, data: bytes) -> Mutation:
    at = draw(st.integers(0, len(data)))
    return Mutation("Truncate", (f"at={at}",), lambda b: b[:at])


@st.composite
def delete_span(draw, data: bytes) -> Mutation:
    start = draw(st.integers(0, len(data)))
    length = draw(st.integers(1, 400))
    return Mutation("DeleteSpan", (f"start={start}", f"length={length}"), lambda b: b[:start] + b[start + length:])


@st.composite
def duplicate_span(draw, data: bytes) -> Mutation:
    start = draw(st.integers(0, len(data)))
    length = draw(st.integers(1, 400))
    times = draw(st.sampled_from([1, 2, 50, 5000]))  # 5,000: a block of results repeated (quadratic readers hang)
    return Mutation("DuplicateSpan", (f"start={start}", f"length={length}", f"times={times}"),
                    lambda b: b[:start + length] + b[start:start + length] * times + b[start + length:])


@st.composite
def insert_bytes(draw, data: bytes) -> Mutation:
    """Bytes of another encoding, invalid UTF-8 or a NUL, at any offset."""
    at = draw(st.integers(0, len(data)))
    what, payload = draw(st.sampled_from([("latin-1", p) for p in LATIN1] + [("invalid-utf8", p) for p in INVALID_UTF8]
                                         + [("nul", b"\x00"), ("bom", b"\xef\xbb\xbf"), ("cr", b"\r")]))
    return Mutation("InsertBytes", (what, repr(payload), f"at={at}"), lambda b: b[:at] + payload + b[at:])


def reencode() -> st.SearchStrategy[Mutation]:
    """The whole text in another encoding: UTF-16 (with or without BOM), latin-1 with a non-ASCII character, CRLF."""
    def utf16(b: bytes) -> bytes:
        return b.decode("utf-8", "replace").encode("utf-16")

    def utf16le(b: bytes) -> bytes:
        return b.decode("utf-8", "replace").encode("utf-16-le")

    def latin1(b: bytes) -> bytes:
        return ("µ " + b.decode("utf-8", "replace")).encode("latin-1", "replace")

    def crlf(b: bytes) -> bytes:
        return b.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")

    return st.sampled_from([Mutation("Reencode", ("utf-16",), utf16), Mutation("Reencode", ("utf-16-le",), utf16le),
                            Mutation("Reencode", ("latin-1",), latin1), Mutation("Reencode", ("crlf",), crlf)])


@st.composite
def deep_nesting(draw, data: bytes) -> Mutation:
    """``[`` nested 1,000 or 100,000 deep: the whole file, or spliced in where a value could be."""
    depth = draw(st.sampled_from([1_000, 100_000]))
    opener = draw(st.sampled_from([b"[", b'{"a":']))
    where = draw(st.sampled_from(["whole", "prefix", "inside"]))
    at = draw(st.integers(0, len(data)))
    nest = opener * depth

    def nested(b: bytes) -> bytes:
        if where == "whole":
            return nest
        if where == "prefix":
            return nest + b
        return b[:at] + nest + b[at:]

    return Mutation("DeepNesting", (f"{opener.decode()!r}*{depth}", where) + ((f"at={at}",) if where == "inside" else ()),
                    nested)


@st.composite
def long_line(draw, data: bytes) -> Mutation:
    """A 1 MB line (digits, spaces, a digit-space run or one word) at a line boundary or inside a line."""
    filler = draw(st.sampled_from(["digits", "spaces", "digit-space", "word"]))
    size = draw(st.sampled_from([MEGABYTE, 200_000]))
    unit = {"digits": b"1", "spaces": b" ", "digit-space": b"1 ", "word": b"a"}[filler]
    line = unit * (size // len(unit))
    lines = data.count(b"\n")
    at_line = draw(st.integers(0, lines))
    inside = draw(st.booleans())

    def insert(b: bytes) -> bytes:
        parts = b.split(b"\n")
        index = min(at_line, len(parts) - 1)
        parts[index] = parts[index] + line if inside else line + b"\n" + parts[index]
        return b"\n".join(parts)

    return Mutation("LongLine", (filler, f"bytes={size}", f"line={at_line}", "appended" if inside else "before"),
                    insert)


@st.composite
def launcher_noise(draw) -> Mutation:
    """Launcher or scheduler lines before the output (a few, or more than a reader looks past), or after it."""
    lines = draw(st.lists(st.sampled_from(NOISE_LINES), min_size=1, max_size=4))
    repeat = draw(st.sampled_from([1, 1, 3, 250]))
    where = draw(st.sampled_from(["before", "before", "after"]))
    text = ("\n".join(lines) + "\n").encode() * repeat

    def noisy(b: bytes) -> bytes:
        return text + b if where == "before" else b + (b"" if b.endswith(b"\n") else b"\n") + text

    return Mutation("LauncherNoise", (f"{len(lines)} line(s) x{repeat}", where, repr(lines[0][:24])), noisy)


# --- token-level mutations (text and JSON alike) --------------------------------------------------

def _number_spans(text: bytes) -> list[tuple[int, int]]:
    """(start, end) of each run that looks like a number (linear scan: digits, sign, point, exponent)."""
    spans, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if 48 <= c <= 57 and (i == 0 or not (text[i - 1:i].isalpha() or text[i - 1:i] == b"_")):
            start = i - 1 if i and text[i - 1:i] == b"-" else i
            while i < n and (48 <= text[i] <= 57 or text[i:i + 1] in (b".", b"e", b"E")
                             or (text[i:i + 1] in (b"+", b"-") and text[i - 1:i] in (b"e", b"E"))):
                i += 1
            spans.append((start, i))
        i += 1
    return spans


def _word_spans(text: bytes) -> list[tuple[int, int]]:
    spans, start = [], None
    for i, c in enumerate(text + b" "):
        if c in b" \t\r\n":
            if start is not None:
                spans.append((start, i))
                start = None
        elif start is None:
            start = i
    return spans


@st.composite
def replace_number(draw, data: bytes) -> Mutation:
    """One printed number replaced: 400 digits, 1e308, -1e308, NaN, Infinity, negative, fractional."""
    spans = _number_spans(data[:MEGABYTE])
    if not spans:
        return Mutation("NoNumber")  # nothing to replace: the file as it is
    index = draw(st.integers(0, len(spans) - 1))
    value = draw(st.sampled_from(HOSTILE_NUMBERS))
    start, end = spans[index]
    shown = value if len(value) < 24 else f"{value[:3]}…({len(value)} chars)"
    return Mutation("ReplaceNumber", (f"#{index}", repr(data[start:end].decode('ascii', 'replace')), shown),
                    lambda b: b[:start] + value.encode() + b[end:])


@st.composite
def replace_word(draw, data: bytes) -> Mutation:
    """One whitespace-separated token of a text replaced by a hostile number or a word, or dropped."""
    spans = _word_spans(data[:200_000])
    if not spans:
        return Mutation("NoWord")
    index = draw(st.integers(0, len(spans) - 1))
    value = draw(st.sampled_from(HOSTILE_NUMBERS + ("abc", "", "-", "null", '"x"', "1.2.3", "1,5")))
    start, end = spans[index]
    shown = value if len(value) < 24 else f"{value[:3]}…({len(value)} chars)"
    return Mutation("ReplaceWord", (f"#{index}", repr(data[start:end][:30].decode('utf-8', 'replace')), repr(shown)),
                    lambda b: b[:start] + value.encode() + b[end:])


# --- JSON structure mutations ---------------------------------------------------------------------

def _json_document(data: bytes):
    """(prefix, document) when ``data`` holds a JSON document after any leading lines, else None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    for offset in [0] + [i + 1 for i, c in enumerate(text[:20_000]) if c == "\n"]:
        if text[offset:offset + 1] in ("{", "["):
            try:
                return text[:offset], json.loads(text[offset:])
            except (ValueError, RecursionError):
                return None
    return None


def _paths(value, path=()) -> list[tuple]:
    """Every value's path in a document (iterative, breadth-first; capped at 20,000)."""
    out, queue = [], deque([(value, path)])
    while queue and len(out) < 20_000:
        node, where = queue.popleft()
        out.append(where)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        queue.extend((child, where + (key,)) for key, child in items)
    return out


def _replaced(document, path: tuple, how: Callable):
    if not path:
        return how(document)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = how(parent[path[-1]])
    return document


def _swap(kind: str):
    """The type swaps of a JSON value: the kinds a wrong-type bug is made of."""
    def to_string(v):
        return json.dumps(v) if not isinstance(v, str) else v + " KiB"

    table = {
        "to-string": to_string,
        "to-null": lambda v: None,
        "to-NaN-string": lambda v: "NaN",
        "to-bool": lambda v: not v if isinstance(v, bool) else True,
        "to-list": lambda v: list(v.values()) if isinstance(v, dict) else [v],
        "to-object": lambda v: {str(i): x for i, x in enumerate(v)} if isinstance(v, list) else {"value": v},
        "to-empty": lambda v: type(v)() if isinstance(v, (dict, list, str)) else {},
        "to-number": lambda v: 1,
        "huge-int": lambda v: int("1" * 400),
        "1e308": lambda v: 1e308,
        "-1e308": lambda v: -1e308,
        "NaN": lambda v: math.nan,
        "Infinity": lambda v: math.inf,
        "-Infinity": lambda v: -math.inf,
        "negative": lambda v: -abs(v) - 1 if isinstance(v, (int, float)) and not isinstance(v, bool) else -1,
        "fraction": lambda v: 2.5,
        "drop-key": None,  # handled apart: the key is removed from its object
    }
    return table[kind]


SWAPS = ("to-string", "to-null", "to-NaN-string", "to-bool", "to-list", "to-object", "to-empty", "to-number",
         "huge-int", "1e308", "-1e308", "NaN", "Infinity", "-Infinity", "negative", "fraction", "drop-key")


@st.composite
def json_swap(draw, data: bytes) -> Mutation:
    """One value of the JSON document swapped for another type or a hostile number, or its key dropped."""
    found = _json_document(data)
    if found is None:
        return Mutation("NotJSON")
    prefix, document = found
    paths = _paths(document)
    path = paths[draw(st.integers(0, len(paths) - 1))]
    kind = draw(st.sampled_from(SWAPS))
    shown = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path) or "<root>"

    def swapped(b: bytes) -> bytes:
        again = _json_document(b)
        if again is None:
            return b
        lead, doc = again
        try:
            if kind == "drop-key":
                parent = doc
                for key in path[:-1]:
                    parent = parent[key]
                if path and isinstance(parent, dict):
                    del parent[path[-1]]
            else:
                doc = _replaced(doc, path, _swap(kind))
        except (KeyError, IndexError, TypeError):
            return b
        return (lead + json.dumps(doc, indent=1)).encode()

    return Mutation("JsonSwap", (shown[:80], kind), swapped)


# --- composition ----------------------------------------------------------------------------------

def gzipped() -> Mutation:
    return Mutation("Gzip", (), lambda b: gzip.compress(b, mtime=0))


@st.composite
def one_mutation(draw, data: bytes, json_doc: bool) -> Mutation:
    choices = [truncate(data), delete_span(data), duplicate_span(data), insert_bytes(data), reencode(),
               deep_nesting(data), long_line(data), launcher_noise(), replace_number(data), replace_word(data)]
    if json_doc:
        choices += [json_swap(data)] * 4  # the structure mutations are the ones only JSON has: drawn more
    return draw(st.one_of(choices))


def mutations(data: bytes) -> st.SearchStrategy[list[Mutation]]:
    """One to three mutations of ``data`` (each drawn against the bytes so far), then gzip one time in eight."""
    return _mutations(Blob(data))


@st.composite
def _mutations(draw, data: bytes) -> list[Mutation]:
    json_doc = _json_document(data) is not None
    out, current = [], data
    for _ in range(draw(st.integers(1, 3))):
        mutation = draw(one_mutation(Blob(current[:4 * MEGABYTE]), json_doc))
        out.append(mutation)
        current = mutation(current)
    if draw(st.integers(0, 7)) == 0:
        out.append(gzipped())
    return out


# --- a guarded call -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """What a guarded call came to: ``kind`` is returned, raised, hang, killed (a signal) or memory."""

    kind: str
    value: object = None
    error_type: str = ""
    message: str = ""
    trace: str = ""


def _vm_bytes() -> int:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def guarded(call: Callable[[], object], *, seconds: float, memory: int) -> Outcome:
    """``call()`` in a forked child: at most ``seconds`` of wall time and ``memory`` bytes more address space.

    The child sends back what ``call`` returned (picklable) or the exception's type, message and
    traceback; a child still running at the limit is killed (``hang``), one killed by a signal is
    reported with it, with the child's fault dump (its Python stack at the crash) as the trace: a
    crash is a finding to read in the test's failure, not text on the terminal of a passing run.
    Fork, not spawn: the child has the parent's imports, so a call costs milliseconds, not the
    seconds an interpreter start with xarray takes."""
    reader, writer = os.pipe()
    with tempfile.TemporaryFile() as dump:
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            os.close(reader)
            faulthandler.enable(file=dump, all_threads=False)  # pytest's own handler writes to its stderr
            _answer(call, memory, writer)
        os.close(writer)
        outcome = _collect(pid, reader, seconds)
        if outcome.kind == "killed":
            dump.seek(0)
            outcome = replace(outcome, trace=dump.read(6000).decode(errors="replace"))
        return outcome


def _answer(call: Callable[[], object], memory: int, writer: int) -> None:
    """The forked child's side of :func:`guarded`: run ``call`` under the memory limit, pickle what it
    came to into ``writer`` and leave with ``os._exit`` (never into pytest)."""
    try:
        limit = _vm_bytes() + memory
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no core file behind
        try:
            result = Outcome("returned", call())
        except MemoryError as exc:
            result = Outcome("memory", error_type="MemoryError", message=str(exc)[:500],
                             trace=traceback.format_exc()[-6000:])
        except BaseException as exc:  # noqa: B036 -- everything the call raises is reported to the parent
            result = Outcome("raised", error_type=f"{type(exc).__module__}.{type(exc).__qualname__}",
                             message=str(exc)[:20_000], trace=traceback.format_exc()[-6000:])
        payload = pickle.dumps(result)
    except BaseException as exc:  # noqa: B036 -- e.g. a value that does not pickle
        payload = pickle.dumps(Outcome("raised", error_type=type(exc).__name__, message=str(exc)[:2000]))
    view = memoryview(payload)
    while view:
        view = view[os.write(writer, view):]
    os._exit(0)


def _collect(pid: int, reader: int, seconds: float) -> Outcome:
    import time

    chunks, deadline = [], time.monotonic() + seconds
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return Outcome("hang", message=f"still running after {seconds:g} s (killed)")
            ready, _, _ = select.select([reader], [], [], left)
            if ready:
                chunk = os.read(reader, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    finally:
        os.close(reader)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
        return Outcome("killed", message=f"the child ended with {how} and no answer (a crash in C code, or memory)")
    return pickle.loads(b"".join(chunks))
