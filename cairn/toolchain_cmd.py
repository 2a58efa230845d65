"""`cairn toolchain install | check`."""

from __future__ import annotations

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from cairn.console import errors_as_exit, fail, out
from cairn.deploy.toolchain import COMPONENTS, default_toolchain, install

toolchain_app = typer.Typer(
    help="The pinned Cairo compiler and starknet-devnet.", no_args_is_help=True
)


@toolchain_app.command("install")
def install_cmd() -> None:
    """Build what is missing from crates.io (pinned, --locked, cached; skipped when present)."""
    tc = default_toolchain()
    with (
        errors_as_exit(),
        Progress(
            SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn()
        ) as progress,
    ):
        task = progress.add_task("checking the toolchain")
        built = install(tc, lambda step: progress.update(task, description=step))
    out.print(f"toolchain ready in {tc.root}" + (f" (built: {', '.join(built)})" if built else ""))


@toolchain_app.command("check")
def check_cmd() -> None:
    """Exit 0 if every component is installed, else list what is missing."""
    tc = default_toolchain()
    for comp in COMPONENTS:
        mark = "[green]ok[/]" if tc.installed(comp) else "[red]missing[/]"
        out.print(f"{comp.name:<24} {comp.version:<8} {mark}  {comp.binary(tc.root)}")
    missing = tc.missing()
    if missing:
        raise fail(f"missing: {', '.join(missing)}. Run `cairn toolchain install`.", 1)
