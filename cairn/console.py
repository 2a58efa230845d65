"""Shared console and the error boundary: known failures print one clear line and exit with
their code; nothing reaches the user as a traceback."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from cairn.deploy.contract import ChainError
from cairn.deploy.devnet import DevnetError
from cairn.deploy.toolchain import ToolchainError
from cairn.prover.errors import VerificationError
from cairn.serializer.errors import MalformedProofError

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

EXIT_REJECTED = 1
EXIT_USAGE = 2


def stages() -> Progress:
    """A spinner per stage of a long command, gone when it ends (the result line stays)."""
    return Progress(
        SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), transient=True
    )


def fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    """Messages quote user input and proof fields: print them literally, never as markup."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(code)


@contextlib.contextmanager
def errors_as_exit() -> Iterator[None]:
    try:
        yield
    except MalformedProofError as e:
        raise fail(f"malformed proof: {e}") from None
    except VerificationError as e:  # a prover refusing a statement its verifier would refuse
        raise fail(f"refused: check {e.check} failed ({e.detail})") from None
    except (ToolchainError, DevnetError, ChainError) as e:
        raise fail(str(e)) from None
    except (ValueError, OSError) as e:
        raise fail(str(e)) from None
    except MemoryError as e:
        raise fail(f"not enough memory: {e}") from None
    except KeyboardInterrupt:
        raise fail("interrupted", 130) from None
