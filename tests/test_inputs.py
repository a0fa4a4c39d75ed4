"""The input layer: every kind of bad user file is one TwelveWaysError line, never a traceback."""

import pytest
import yaml

from twelveways import config, inputs
from twelveways.errors import ConfigError, TwelveWaysError


def test_binary_file_is_one_line(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_bytes(b"\xff\xfe\x00binary\x9c")
    with pytest.raises(ConfigError, match=r"not UTF-8 text \(byte 0"):
        config.load(path)


def test_directory_is_named(tmp_path):
    with pytest.raises(ConfigError, match="is a directory, not a file"):
        config.load(tmp_path)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(TwelveWaysError, match="claims file not found"):
        inputs.read_yaml(tmp_path / "nope.yaml", "claims file")


def test_deep_nesting_is_refused_quickly(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ConfigError, match="nested"):
        config.load(path)
    json_path = tmp_path / "deep.json"
    json_path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ConfigError, match="nested too deeply"):
        config.read_json(json_path)


def test_moderate_depth_beyond_limit_is_refused(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("a: " + "[" * (inputs.MAX_DEPTH + 2) + "]" * (inputs.MAX_DEPTH + 2) + "\n")
    with pytest.raises(TwelveWaysError, match=f"nested more than {inputs.MAX_DEPTH} levels"):
        inputs.read_yaml(path, "metadata")


def _nested(style: str, depth: int) -> str:
    """A document whose innermost value lies ``depth`` levels deep, in flow or block style, lists or mappings."""
    if style == "flow":
        return "[" * depth + "1" + "]" * depth
    if style == "block-mappings":
        return "".join(" " * i + f"k{i}:\n" for i in range(depth - 1)) + " " * (depth - 1) + "v: 1\n"
    return "".join(" " * (2 * i) + "-\n" for i in range(depth)) + " " * (2 * depth) + "1\n"


@pytest.mark.parametrize("style", ["flow", "block-mappings", "block-lists"])
@pytest.mark.parametrize("depth", [inputs.MAX_DEPTH - 1, inputs.MAX_DEPTH, inputs.MAX_DEPTH + 1, inputs.MAX_DEPTH + 2])
def test_the_scanners_depth_bound_refuses_exactly_what_the_shape_check_refuses(style, depth):
    """The loader stops at the first collection beyond the bound; the whole value is then checked as before."""
    text = _nested(style, depth)

    def outcome(parse):
        try:
            return parse()
        except TwelveWaysError as exc:
            return str(exc)

    def unbounded():
        value = yaml.safe_load(text)
        inputs.check_shape(value, "doc")
        return value

    assert outcome(lambda: inputs.parse_yaml(text, "doc")) == outcome(unbounded)
    assert isinstance(outcome(unbounded), str) == (depth > inputs.MAX_DEPTH)


def test_alias_bomb_is_refused_without_expanding(tmp_path):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        refs = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TwelveWaysError, match="expands to more than") as info:
        inputs.read_yaml(path, "claims file")
    assert "lol" not in str(info.value)  # the message never reprs the value


def test_oversized_file_is_refused(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("x: 1\n")
    with pytest.raises(TwelveWaysError, match="bytes, more than the 3 accepted"):
        inputs.read_text(path, "metadata", max_bytes=3)


def test_malformed_json_names_line_and_column(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"a": 1,\n  oops}')
    with pytest.raises(ConfigError, match=r"not valid JSON .* at line 2, column 3"):
        config.read_json(path)


def test_good_yaml_reads(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("a: &x [1, 2]\nb: *x\n")
    assert inputs.read_yaml(path, "metadata") == {"a": [1, 2], "b": [1, 2]}


def test_a_text_parsed_again_gives_an_equal_value_of_its_own():
    """The second parse of a text is served from memory: equal to the first, aliases still shared, and a
    caller changing its copy changes nobody else's."""
    text = "base: &b {threads: [1, 2]}\nother: *b\nwhen: 2026-11-29\n"
    first = inputs.parse_yaml(text, "first")
    second = inputs.parse_yaml(text, "second")
    assert first == second == yaml.safe_load(text)
    assert second["base"] is second["other"] and second["base"] is not first["base"]
    second["base"]["threads"].append(4)
    assert inputs.parse_yaml(text, "third")["base"]["threads"] == [1, 2]


def test_a_refused_text_is_refused_again_with_its_own_place():
    """Refusals are never remembered: the same bad text names the file it came from each time."""
    deep = "[" * (inputs.MAX_DEPTH + 2) + "]" * (inputs.MAX_DEPTH + 2)
    for where in ("a.yaml", "b.yaml"):
        with pytest.raises(TwelveWaysError, match=f"^{where}: nested more than"):
            inputs.parse_yaml(deep, where)
