"""What each encoded feature means in terms of the table it came from.

Rules are learned on an encoded matrix (numeric columns as they are, one 0/1
column per category, one 0/1 ``is missing`` column per column with gaps).  A
:class:`FeatureSpec` says which source column and which reading an encoded
feature stands for, so a condition on it can be printed the way a person would
write it (``Margin = 5``, ``Margin is missing``, ``Age > 32``) and a condition
written that way can be bound back to the encoded feature.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

#: The values of FeatureSpec.kind.
FEATURE_KINDS = ("numeric", "onehot", "missing")

#: How a column's numbers may be written in its file when not plainly (``FeatureSpec.written``), each with
#: what turns a cell's text into a plain number's: (characters dropped, character read as the decimal point).
#: A reader of the file's cells (the SQL and Python exports) needs it: "1,5" is 1.5 in a file of decimal
#: commas, and a database reading that text as a number gives 1.
NUMBER_FORMATS = {
    "decimal commas": ("", ","),  # 1,5  -2,25
    "decimal commas and thousands dots": (".", ","),  # 1.234,5
    "thousands separators": (",", "."),  # 1,234  12,345.5 (a comma-delimited file, the cell quoted)
}


@dataclass(frozen=True)
class FeatureSpec:
    """One encoded feature.

    ``name`` is the feature's name in the encoded matrix; ``column`` the source
    column; ``kind`` one of :data:`FEATURE_KINDS`: ``numeric`` (the column's
    values), ``onehot`` (1 where the column equals ``value``, 0 elsewhere,
    including missing cells) or ``missing`` (1 where the column is missing).
    ``integer`` is True for a numeric feature whose observed values are all
    whole numbers, so a threshold on it can be printed as a whole number.
    """

    name: str
    column: str
    kind: str = "numeric"
    value: Any = None
    integer: bool = False
    #: how the column's numbers are written in the file, a key of NUMBER_FORMATS, or None (plainly, or not
    #: read from a file); not part of what the feature is, so not compared
    written: str | None = field(default=None, compare=False)

    @property
    def binary(self) -> bool:
        """Whether the feature holds 0 or 1 and nothing else (a one-hot feature or a missing indicator)."""
        return self.kind in ("onehot", "missing")

    def __post_init__(self) -> None:
        if self.kind not in FEATURE_KINDS:
            raise ValueError(f"unknown feature kind {self.kind!r}; use one of {', '.join(FEATURE_KINDS)}")
        if self.written is not None and self.written not in NUMBER_FORMATS:
            raise ValueError(f"unknown number format {self.written!r}; use one of {', '.join(NUMBER_FORMATS)}")

    def to_dict(self) -> dict:
        value = self.value.item() if hasattr(self.value, "item") else self.value
        return {
            "name": self.name,
            "column": self.column,
            "kind": self.kind,
            "value": value,
            "integer": bool(self.integer),
            **({"written": self.written} if self.written else {}),
        }


def numeric_specs(names: Iterable[str]) -> list[FeatureSpec]:
    """Specs for a plain numeric matrix (no encoding known): each feature is its own column."""
    return [FeatureSpec(str(n), str(n)) for n in names]
