"""The pinned Cairo toolchain and starknet-devnet, built from crates.io and cached.

Layout under $CAIRN_TOOLCHAIN_DIR (default ~/.cache/cairn/toolchain):

    cairo-2.17.0/bin/{starknet-compile, cairo-test, starknet-sierra-compile}
    cairo-2.17.0/corelib                              (Cairo 2.16.0's, shipped by cairo-native)
    starknet-devnet-0.8.2/bin/starknet-devnet

The compilers find their corelib two directories above the executable (bin/..), which is why
the corelib sits beside bin/. Every install is `cargo install --locked` at a pinned version and
is skipped when the binary already reports that version.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# 2.17.0 emits Sierra 1.8.0, the first version whose audited libfunc list admits `core::blake`;
# devnet 0.8 checks CASM hashes with 2.17.0 too. No registry package ships 2.17.0's corelib, so
# the compilers run over 2.16.0's (docs/cairo-verifier.md, "Toolchain").
CAIRO_VERSION = "2.17.0"
DEVNET_VERSION = "0.8.2"
CORELIB_CRATE = ("cairo-native", "0.9.0-rc.5")  # ships Cairo 2.16.0's complete corelib
CORELIB_VERSION = "2.16.0"


class ToolchainError(RuntimeError):
    """A component is missing or failed to build; the message says what to do."""


@dataclass(frozen=True)
class Component:
    name: str
    crate: str
    version: str
    subdir: str

    def binary(self, root: Path) -> Path:
        return root / self.subdir / "bin" / self.name


COMPONENTS = (
    Component("starknet-compile", "starknet-compile", CAIRO_VERSION, f"cairo-{CAIRO_VERSION}"),
    Component("cairo-test", "cairo-test", CAIRO_VERSION, f"cairo-{CAIRO_VERSION}"),
    Component(
        "starknet-sierra-compile",
        "starknet-sierra-compile",
        CAIRO_VERSION,
        f"cairo-{CAIRO_VERSION}",
    ),
    Component(
        "starknet-devnet", "starknet-devnet", DEVNET_VERSION, f"starknet-devnet-{DEVNET_VERSION}"
    ),
)


@dataclass(frozen=True)
class Toolchain:
    root: Path

    @property
    def starknet_compile(self) -> Path:
        return COMPONENTS[0].binary(self.root)

    @property
    def cairo_test(self) -> Path:
        return COMPONENTS[1].binary(self.root)

    @property
    def sierra_compile(self) -> Path:
        return COMPONENTS[2].binary(self.root)

    @property
    def devnet(self) -> Path:
        return COMPONENTS[3].binary(self.root)

    @property
    def corelib(self) -> Path:
        return self.root / f"cairo-{CAIRO_VERSION}" / "corelib"

    def installed(self, comp: Component) -> bool:
        exe = comp.binary(self.root)
        if not exe.is_file():
            return False
        try:
            out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return out.stdout.split()[-1:] == [comp.version]

    def corelib_installed(self) -> bool:
        return (self.corelib / "src" / "lib.cairo").is_file()

    def missing(self) -> list[str]:
        """Human-readable names of what is not installed, empty when all is there."""
        out = [f"{c.name} {c.version}" for c in COMPONENTS if not self.installed(c)]
        if not self.corelib_installed():
            out.append(f"Cairo {CORELIB_VERSION} corelib")
        return out

    def require(self) -> Toolchain:
        missing = self.missing()
        if missing:
            raise ToolchainError(
                f"missing from {self.root}: {', '.join(missing)}. "
                "Run `cairn toolchain install` (builds from crates.io; tens of minutes once)."
            )
        return self


def default_toolchain() -> Toolchain:
    env = os.environ.get("CAIRN_TOOLCHAIN_DIR")
    return Toolchain(Path(env) if env else Path.home() / ".cache" / "cairn" / "toolchain")


Step = Callable[[str], None]


def _run_logged(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> None:
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env)
    if proc.returncode != 0:
        tail = "\n".join(log.read_text().splitlines()[-15:])
        raise ToolchainError(f"`{' '.join(cmd)}` failed (log: {log}):\n{tail}")


def _install_crate(tc: Toolchain, comp: Component) -> None:
    if shutil.which("cargo") is None:
        raise ToolchainError("cargo not found: install Rust (rustup) to build the Cairo toolchain")
    env = dict(os.environ, CARGO_TARGET_DIR=str(tc.root / "cargo-target"))
    cmd = ["cargo", "install", "--locked", comp.crate, "--version", comp.version]
    cmd += ["--root", str(tc.root / comp.subdir), "--force"]
    _run_logged(cmd, tc.root / "logs" / f"{comp.name}.log", env)


def _install_corelib(tc: Toolchain) -> None:
    """`cargo fetch` a throwaway manifest to get cairo-native's corelib without building it."""
    crate, version = CORELIB_CRATE
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp)
        (manifest / "src").mkdir()
        (manifest / "src" / "lib.rs").write_text("")
        (manifest / "Cargo.toml").write_text(
            f'[package]\nname = "corelib-fetch"\nversion = "0.0.0"\nedition = "2021"\n'
            f'[dependencies]\n{crate} = "={version}"\n'
        )
        _run_logged(
            ["cargo", "fetch", "--manifest-path", str(manifest / "Cargo.toml")],
            tc.root / "logs" / "corelib.log",
        )
    cargo_home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    sources = sorted(cargo_home.glob(f"registry/src/*/{crate}-{version}/corelib"))
    if not sources:
        raise ToolchainError(f"{crate} {version} fetched but its corelib/ was not found")
    tmp_dest = tc.corelib.with_name("corelib.partial")
    shutil.rmtree(tmp_dest, ignore_errors=True)
    shutil.copytree(sources[0], tmp_dest)
    shutil.rmtree(tc.corelib, ignore_errors=True)
    tmp_dest.rename(tc.corelib)


def install(tc: Toolchain, on_step: Step) -> list[str]:
    """Install what is missing, in order; returns the names of what was built."""
    built = []
    for comp in COMPONENTS:
        if tc.installed(comp):
            continue
        on_step(f"cargo install {comp.crate} {comp.version}")
        _install_crate(tc, comp)
        built.append(f"{comp.name} {comp.version}")
    if not tc.corelib_installed():
        on_step(
            f"fetching the Cairo {CORELIB_VERSION} corelib ({CORELIB_CRATE[0]} {CORELIB_CRATE[1]})"
        )
        _install_corelib(tc)
        built.append("corelib")
    shutil.rmtree(tc.root / "cargo-target", ignore_errors=True)
    return built
