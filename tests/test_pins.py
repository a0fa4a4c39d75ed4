"""pyproject.toml, the lock, environment.yml and envs/*.yaml state the same versions."""

from twelveways import pins


def test_pins_agree():
    assert pins.disagreements() == []


def test_torch_pinned_to_the_local_wheel():
    assert pins.project_pins()["torch"] == "2.13.0"
