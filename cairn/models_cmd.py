"""`cairn model import`: calibrate a real model and commit its weights once."""

from __future__ import annotations

import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from cairn.console import errors_as_exit, out
from cairn.models.minilm import model_file

model_app = typer.Typer(
    help="Real models: import (calibrate and commit) once.", no_args_is_help=True
)


class ModelName(StrEnum):
    """The models Cairn can import (docs/models/)."""

    minilm = "minilm"


@model_app.command("import")
def import_cmd(
    name: Annotated[ModelName, typer.Argument(help="the model")],
    out_dir: Annotated[Path, typer.Option("--out", help="folder of the model file")] = Path("."),
) -> None:
    """Calibrate the integer pipeline and commit every weight tensor (Poseidon PCS) into
    NAME.model.json; a no-op when an identical import is already there."""
    start = time.perf_counter()
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with errors_as_exit(), Progress(*columns, transient=True) as progress:
        task = progress.add_task("starting", total=None)

        def stage(text: str) -> None:
            progress.update(task, description=text)

        def advance(tensor: str, done: int, total: int) -> None:
            progress.update(task, description=f"committing {tensor}", completed=done, total=total)

        path, written = model_file.import_model(out_dir, None, stage, advance)
    if not written:
        out.print(f"{path} is up to date (same source sha256, config, widths and calibration)")
        return
    seconds = time.perf_counter() - start
    out.print(f"wrote {path} ({name.value}, imported in {seconds:.0f} s)")
