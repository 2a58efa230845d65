"""Versioned JSON documents on disk: atomic writes and validating reads, for every file
Cairn writes (proofs, commitments, calldata, deployment records, benchmark results)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cairn.serializer.errors import MalformedProofError


def write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and a rename: a crash never leaves a half-written file, and
    a failed write leaves nothing behind."""
    write_together({path: text})


def write_together(files: Mapping[Path, str]) -> None:
    """`write_atomic` for files that belong together (a proof and its committed I/O): every
    temporary file is written before any is renamed, so a failed write leaves none of them."""
    tmps = {path: path.with_name(path.name + ".tmp") for path in files}
    try:
        for path, text in files.items():
            tmps[path].write_text(text)
        for path, tmp in tmps.items():
            tmp.replace(path)
    except BaseException:
        for tmp in tmps.values():
            with contextlib.suppress(OSError):
                tmp.unlink()
        raise


def read_document(path: Path, fmt: str, version: int) -> dict[str, Any]:
    """The JSON object in `path`, after checking its `format` and `version` header."""
    try:
        doc = json.loads(path.read_text())
    except OSError as e:
        raise MalformedProofError(str(path), f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise MalformedProofError(str(path), "not a UTF-8 text file") from None
    except json.JSONDecodeError as e:
        problem = f"not valid JSON ({e.msg} at line {e.lineno})"
        raise MalformedProofError(str(path), problem) from None
    except RecursionError:
        raise MalformedProofError(str(path), "JSON nested too deeply") from None
    check_header(doc, fmt, version)
    return doc


def check_header(doc: Any, fmt: str, version: int) -> None:
    if not isinstance(doc, dict):
        raise MalformedProofError("(top)", "expected a JSON object")
    if doc.get("format") != fmt:
        raise MalformedProofError("format", f"expected {fmt!r}")
    got = doc.get("version")
    if isinstance(got, bool) or got != version:
        raise MalformedProofError("version", f"unsupported version {got!r} (want {version})")
