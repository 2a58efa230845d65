"""Every single-leaf mutation of a proof tree: each QM31 and int, in every nested dataclass,
list and dict, changed by one. Layer tests run the verifier on each and expect a rejection."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from cairn.prover.fields.qm31 import QM31

ONE = QM31(1, 0, 0, 0)


def mutations(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, copy of `value` with exactly the leaf at `path` changed)."""
    if isinstance(value, QM31):
        yield path, value + ONE
    elif isinstance(value, bool):
        return
    elif isinstance(value, int):
        yield path, value + 1
    elif dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            for sub, changed in mutations(getattr(value, f.name), f"{path}.{f.name}"):
                yield sub, dataclasses.replace(value, **{f.name: changed})  # type: ignore[type-var]
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            for sub, changed in mutations(item, f"{path}[{i}]"):
                yield sub, type(value)([*value[:i], changed, *value[i + 1 :]])
    elif isinstance(value, dict):
        for key, item in value.items():
            for sub, changed in mutations(item, f"{path}.{key}"):
                yield sub, {**value, key: changed}
