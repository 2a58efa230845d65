"""`cairn devnet | deploy | register-model | verify-onchain | demo`: the on-chain path."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from starknet_py.net.account.account import Account

from cairn import examples
from cairn.console import EXIT_REJECTED, errors_as_exit, fail, out, stages
from cairn.deploy import contract, deployments, devnet, registry
from cairn.deploy.build import Artifacts, build
from cairn.deploy.certified import certified_keys
from cairn.deploy.toolchain import default_toolchain
from cairn.options import ConfigHash, parse_felt
from cairn.proofs import onchain_proof
from cairn.prover.errors import VerificationError
from cairn.prover.graph.proof import GraphProof
from cairn.prover.layers.matmul import model as matmul
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.proof import CommittedTensor
from cairn.prover.walk.proof import WalkProof
from cairn.prover.walk.prover import prove_walk
from cairn.prover.walk.verifier import replay_layer, verify_walk
from cairn.serializer import calldata, commitment_file, proof_file

devnet_app = typer.Typer(help="A local starknet-devnet in the background.", no_args_is_help=True)

Rpc = Annotated[
    str | None, typer.Option(help="RPC URL (default: the devnet of `cairn devnet start`)")
]
AccountOpt = Annotated[str | None, typer.Option("--account", help="account address (0x…)")]
KeyOpt = Annotated[str | None, typer.Option("--private-key", help="account private key (0x…)")]


def _log_dir() -> Path:
    return devnet.state_file().parent / "logs"


@devnet_app.command("start")
def devnet_start() -> None:
    """Start a devnet (fixed seed, free port) unless one is already running."""
    url = devnet.recorded_url()
    if url:
        out.print(f"devnet already running at {url}")
        return
    with errors_as_exit():
        info = devnet.start(default_toolchain(), _log_dir())
    devnet.save_state(info)
    out.print(f"devnet running at {info.url} (pid {info.pid}, log {info.log})")


@devnet_app.command("stop")
def devnet_stop() -> None:
    """Stop the devnet started by `cairn devnet start`."""
    info = devnet.load_state()
    if info is None:
        out.print("no devnet recorded")
        return
    devnet.stop(info)
    devnet.clear_state()
    out.print(f"devnet on port {info.port} stopped")


@devnet_app.command("status")
def devnet_status() -> None:
    """Exit 0 if the recorded devnet answers, 1 if it is not running or has died."""
    info = devnet.load_state()
    if info is None:
        raise fail("no devnet running (start one with `cairn devnet start`)", 1)
    if not devnet.is_alive(info.url):
        raise fail(
            f"devnet recorded at {info.url} (pid {info.pid}) is not answering; see {info.log}", 1
        )
    out.print(f"devnet alive at {info.url} (pid {info.pid})")


@dataclass(frozen=True)
class Target:
    rpc: str
    address: str
    private_key: str


def _hex(option: str, value: str) -> int:
    try:
        return int(value, 16)
    except ValueError:
        raise fail(f"{option} {value!r} is not a hex number (0x…)") from None


def _target(rpc: str | None, account: str | None, key: str | None) -> Target:
    url = rpc or devnet.recorded_url()
    if url is None:
        raise fail("no --rpc given and no devnet running: run `cairn devnet start`")
    if account and key:
        _hex("--account", account), _hex("--private-key", key)
        return Target(url, account, key)
    if account or key:
        raise fail("give both --account and --private-key, or neither (devnet account #0)")
    accounts = devnet.predeployed_accounts(url)
    return Target(url, accounts[0].address, accounts[0].private_key)


async def _account(t: Target) -> Account:
    return await contract.connect(t.rpc, t.address, t.private_key)


def deploy(
    rpc: Rpc = None,
    account: AccountOpt = None,
    private_key: KeyOpt = None,
    owner: Annotated[
        str | None, typer.Option(help="model registry owner (default: the deploying account)")
    ] = None,
) -> None:
    """Build the eight classes, declare them (if new) and deploy CairnVerifier; records the
    address."""
    owner_address = parse_felt("--owner", owner, nonzero=True) if owner else None
    with errors_as_exit():
        t = _target(rpc, account, private_key)
        out.print("building the contract (cached after the first build)…")
        art = build(default_toolchain())
        helpers = ", ".join(
            f"{c.sierra_length} ({arg.removesuffix('_class')})" for arg, c in art.helpers().items()
        )
        out.print(
            f"Sierra programs: {art.sierra_length} (CairnVerifier), {helpers} felts "
            "(limit 81,920 each)"
        )
        dep = asyncio.run(_deploy(t, art, owner_address))
    deployments.record(t.rpc, dep)
    out.print(f"class {dep.class_hash:#x} {'declared' if dep.declared_now else 'already declared'}")
    out.print(f"CairnVerifier deployed at {dep.address:#x}")


async def _deploy(t: Target, art: Artifacts, owner: int | None = None) -> contract.Deployment:
    return await contract.declare_and_deploy(await _account(t), art, owner)


def _address(t: Target, address: str | None) -> int:
    addr = _hex("--address", address) if address else deployments.lookup(t.rpc)
    if addr is None:
        raise fail(f"no CairnVerifier recorded for {t.rpc}: run `cairn deploy` or give --address")
    return addr


AddressOpt = Annotated[str | None, typer.Option(help="CairnVerifier address")]


def register_model(
    model_id: Annotated[str, typer.Argument(help="model id (0x… or decimal, not 0)")],
    commitments: Annotated[
        list[Path] | None,
        typer.Argument(help="commitment files (`cairn commit`), in weight order"),
    ] = None,
    proof: Annotated[
        Path | None,
        typer.Option(
            help="register a proof's committed weights instead, in name order (and verify the "
            "range walks certifying a model walk's declared weights, which it carries)"
        ),
    ] = None,
    config_hash: ConfigHash = "0x0",
    rpc: Rpc = None,
    account: AccountOpt = None,
    private_key: KeyOpt = None,
    address: AddressOpt = None,
) -> None:
    """Register a model's weight commitments (owner only; docs/registry.md): weight i of the
    model is the i-th file's commitment, or the i-th committed weight (by name) of --proof.
    A model walk's certificates are verified on chain after it (docs/registry.md, "Certified
    declarations"), each in a session when over one transaction."""
    model = parse_felt("MODEL_ID", model_id, nonzero=True)
    config = parse_felt("--config-hash", config_hash)
    if bool(commitments) == (proof is not None):
        raise fail("give commitment files or --proof, not both")
    certificates: list[WalkProof] = []
    with errors_as_exit():
        if proof is not None:
            loaded, certificates = proof_file.load_bundle(proof)
            tensors = _committed_weights(proof, loaded)
        else:
            tensors = [commitment_file.load(path) for path in commitments or []]
        entries = [f for t in tensors for f in calldata.commitment_entry(t)]
        t = _target(rpc, account, private_key)
        addr = _address(t, address)
        tx = asyncio.run(_register(t, addr, model, config, entries))
        out.print(f"model {model:#x} registered with {len(tensors)} commitment(s) ({tx:#x})")
        for i, certificate in enumerate(certificates, 1):
            verdict = asyncio.run(_verify(t, addr, calldata.encode_parts(certificate)))
            if not verdict.accepted:
                raise fail(f"certificate {i} rejected on chain: {verdict.reason}", EXIT_REJECTED)
            out.print(
                f"certificate {i}/{len(certificates)}: {len(certified_keys(certificate.statement))}"
                f" declared ranges certified ({len(verdict.transactions)} transactions, L2 gas "
                f"{verdict.l2_gas})"
            )


def _committed_weights(path: Path, loaded: proof_file.AnyProof) -> list[CommittedTensor]:
    """A proof's committed weights in name order (the order a binding indexes), not its
    committed inputs and outputs: a model walk's by its wiring; a layer proof's are the
    committed tensors its layer leaves weight claims on, so its walk is replayed, up to its
    opening."""
    if isinstance(loaded, GraphProof):
        g = loaded.statement
        if not (names := sorted(g.committed_weights())):
            raise fail(f"{path} has no committed weights (prove it with --commit-weights)")
        return [g.committed[name] for name in names]
    if not isinstance(loaded, WalkProof) or not loaded.statement.committed:
        raise fail(f"{path} has no committed weights (prove it with --commit-weights)")
    try:
        _, claims = replay_layer(LAYERS[loaded.statement.kind], loaded)
    except VerificationError as e:
        raise fail(f"{path} does not verify: check {e.check} failed ({e.detail})") from None
    weights = sorted(n for n, group in claims.groups.items() if group == "weights")
    if not weights:
        raise fail(f"{path} has no committed weights (prove it with --commit-weights)")
    return [loaded.statement.committed[name] for name in weights]


async def _register(t: Target, addr: int, model: int, config: int, entries: list[int]) -> int:
    return await registry.register_model(await _account(t), addr, model, config, entries)


def verify_onchain(
    file: Annotated[Path, typer.Argument(help="proof file")],
    rpc: Rpc = None,
    account: AccountOpt = None,
    private_key: KeyOpt = None,
    address: AddressOpt = None,
) -> None:
    """Verify a proof with the deployed contract: exit 0 accepted, 1 rejected, 2 usage. A proof
    too large for one transaction is verified in a session of several."""
    with errors_as_exit():
        loaded = proof_file.load(file)
        parts = calldata.encode_parts(onchain_proof(loaded))
        total = len(parts.flat) + contract.INVOKE_OVERHEAD_FELTS
        # A session's first transaction carries at least the front: the statement itself.
        first = len(parts.front) + contract.OPEN_OVERHEAD_FELTS if parts.steps else total
        if first > contract.MAX_CALLDATA_FELTS:
            what = "its statement's calldata" if parts.steps else "calldata"
            raise fail(
                f"{what} of {first} felts exceeds Starknet's limit of "
                f"{contract.MAX_CALLDATA_FELTS} per transaction; prove it with --commit-io "
                "poseidon (and --commit-weights poseidon) so the statement carries roots, not "
                "values, or prove a smaller instance"
            )
        t = _target(rpc, account, private_key)
        with stages() as progress:
            task = progress.add_task("verifying on chain")

            def report(sent: int, txs: int) -> None:
                what = f"{sent}/{len(parts.steps)} parts after the statement, {txs} transactions"
                progress.update(task, description=f"verifying on chain in a session: {what}")

            verdict = asyncio.run(_verify(t, _address(t, address), parts, report))
    out.print(f"calldata      {total} felts")
    for i, tx in enumerate(verdict.transactions, 1):
        label = (
            "transaction"
            if len(verdict.transactions) == 1
            else f"tx {i}/{len(verdict.transactions)}"
        )
        out.print(
            f"{label:<13} {tx.tx_hash:#x}: {tx.calldata_felts} felts, L2 gas {tx.l2_gas}, "
            f"fee {tx.fee_fri} FRI"
        )
    if verdict.l2_gas is not None:
        out.print(f"L2 gas        {verdict.l2_gas}\nfee           {verdict.fee_fri} FRI")
    if not verdict.accepted:
        hint = ""
        if verdict.reason == "graph.declared":
            hint = (
                " (a declared weight range no verified range walk has certified: `cairn "
                f"register-model MODEL_ID --proof {file}` verifies the ones the file carries)"
            )
        raise fail(f"rejected on chain: {verdict.reason}{hint}", EXIT_REJECTED)
    out.print(
        f"accepted on chain: ProofVerified(model_id={verdict.model_id}, "
        f"proof_hash={verdict.proof_hash:#x}, io_hash={verdict.io_hash:#x})"
    )
    keys = certified_keys(loaded.statement) if isinstance(loaded, WalkProof) else []
    if keys:
        out.print(f"certified     {len(keys)} declared weight ranges (docs/registry.md)")


async def _verify(
    t: Target,
    addr: int,
    parts: calldata.CalldataParts,
    report: Callable[[int, int], None] | None = None,
) -> contract.OnchainVerdict:
    acc = await _account(t)
    if not await contract.is_deployed(acc, addr):
        raise fail(f"no contract at {addr:#x} on {t.rpc}: run `cairn deploy` again")
    return await contract.verify_parts(acc, addr, parts, progress=report)


def demo(
    m: Annotated[int, typer.Option(min=1)] = 32,
    k: Annotated[int, typer.Option(min=1)] = 64,
    n: Annotated[int, typer.Option(min=1)] = 16,
    seed: int = 7,
) -> None:
    """The whole path: start a devnet, prove a matmul, verify it in Python and on chain, stop."""
    with errors_as_exit():
        tc = default_toolchain().require()
        spec = LAYERS[matmul.KIND]
        out.print(f"[1/5] proving matmul {m}×{k}×{n}")
        proof = prove_walk(spec, examples.matmul_example(m, k, n, seed))
        verify_walk(spec, proof)
        out.print("[2/5] verified in Python")
        parts = calldata.encode_parts(proof)
        art = build(tc)
        out.print(f"[3/5] contract built: Sierra {art.sierra_length} felts")
        with devnet.running_devnet(tc, _log_dir()) as info:
            t = _target(info.url, None, None)
            out.print(f"[4/5] devnet at {info.url}; declaring and deploying")
            dep = asyncio.run(_deploy(t, art))
            verdict = asyncio.run(_verify(t, dep.address, parts))
        out.print("[5/5] devnet stopped")
    out.print(f"contract      {dep.address:#x}\ncalldata      {len(parts.flat)} felts")
    if verdict.tx_hash is not None:
        out.print(f"transaction   {verdict.tx_hash:#x}\nL2 gas        {verdict.l2_gas}")
    if not verdict.accepted:
        raise fail(f"rejected on chain: {verdict.reason}", EXIT_REJECTED)
    out.print("[bold green]accepted on chain[/]")
