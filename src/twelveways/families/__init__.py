"""The benchmark families, each declared once (``families/<name>.py``), in report order.

The Snakemake rules (one generated notebook rule per family), the report's notebook index, the
results files of the enabled stages and the checklist's R2 levels all read :data:`FAMILIES`;
adding a family is a module here plus one line below.
"""

from __future__ import annotations

from . import environment, infer, prk, train
from .model import Family, Figures

#: name -> declaration, in the order the report shows the notebooks.
FAMILIES: dict[str, Family] = {family.name: family for family in
                               (environment.FAMILY, prk.FAMILY, train.FAMILY, infer.FAMILY)}

__all__ = ["FAMILIES", "Family", "Figures", "by_notebook", "by_stage", "staged"]


def staged() -> list[Family]:
    """The benchmark families (those a ``stages.<key>`` switches), in report order."""
    return [family for family in FAMILIES.values() if family.stage]


def by_stage(stage: str) -> Family | None:
    """The family whose stage key (and rows' ``benchmark`` value) is ``stage``, or None."""
    return next((family for family in FAMILIES.values() if family.stage == stage), None)


def by_notebook(name: str) -> Family | None:
    """The family whose notebook is ``notebooks/<name>.py``, or None (e.g. the checklist's)."""
    return next((family for family in FAMILIES.values() if family.notebook == name), None)
