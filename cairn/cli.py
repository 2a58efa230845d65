"""The `cairn` command: every subcommand has --help; exit 2 means usage or malformed input."""

from __future__ import annotations

import typer

from cairn import bench, onchain, proofs
from cairn.model_proofs import prove_model_app
from cairn.models_cmd import model_app
from cairn.prove_cmd import prove_app
from cairn.toolchain_cmd import toolchain_app

app = typer.Typer(
    help="Prove transformer inference over M31; verify in Python and on Starknet.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
prove_app.add_typer(prove_model_app, name="model")
app.add_typer(prove_app, name="prove")
app.command("commit")(proofs.commit_cmd)
app.command()(proofs.verify)
app.command("calldata")(proofs.calldata_cmd)
app.command()(proofs.inspect)
app.add_typer(toolchain_app, name="toolchain")
app.add_typer(onchain.devnet_app, name="devnet")
app.command()(onchain.deploy)
app.command("register-model")(onchain.register_model)
app.command("verify-onchain")(onchain.verify_onchain)
app.command()(onchain.demo)
app.add_typer(bench.bench_app, name="bench")
app.add_typer(model_app, name="model")
