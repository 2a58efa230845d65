"""The Python mirror of CairnVerifier's sessions (docs/cairo-verifier.md, "Sessions").

Between the transactions of a session the contract keeps only the account that opened it and
the hash of its state, and its `SessionState` event carries only that hash (the state grows
with the statement; an event holds at most 300 data felts). The caller therefore rebuilds the
state itself: `session_state` replays the Python verifier and serializes what the contract's
`Session` serializes, felt for felt. `Sessions` mirrors the contract's session checks, in its
order, so the verdicts of both sides can be compared.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate, islice, pairwise

import numpy as np

from cairn.deploy.certified import certified_keys
from cairn.prover.channels.fork import fork
from cairn.prover.channels.poseidon import hash_many, poseidon_hash
from cairn.prover.channels.poseidon252 import Poseidon252Channel, pack_qm31s
from cairn.prover.claims import Claim
from cairn.prover.errors import VerificationError
from cairn.prover.fields.qm31 import QM31
from cairn.prover.graph.verifier import GraphWalk
from cairn.prover.layers.registry import LAYERS
from cairn.prover.pcs.front import FrontReplay, QueryPhase
from cairn.prover.pcs.params import POSEIDON_PARAMS, PcsParams
from cairn.prover.pcs.proof import Commitment, OpeningProof
from cairn.prover.pcs.queries import BatchLayout
from cairn.prover.pcs.verifier import fold_trees, verify_front, verify_groups
from cairn.prover.walk.statement import NO_MODEL
from cairn.prover.walk.verifier import committed_batch, replay_layer, witness_batch
from cairn.prover.walk.witness import TAG, witness_params
from cairn.serializer import calldata
from cairn.serializer.calldata import CalldataParts, PcsOpening
from cairn.serializer.graph_calldata import (
    WitnessPolys,
    is_graph,
    replay_graph_calldata,
    witness_commitments,
    witness_polys,
)
from cairn.serializer.pcs_calldata import HASH_TAGS, statement_params
from cairn.serializer.serde import short_string
from cairn.serializer.walk_calldata import decode_walk_front, is_walk, read_walk_groups


def transactions(parts: CalldataParts, counts: Sequence[int]) -> list[list[int]]:
    """The calldata of a session's transactions when the i-th carries `counts[i]` parts after
    the front (`parts.steps`): `open_session`'s proof (the front and its parts), then each
    `continue_session`'s parts."""
    steps = parts.steps
    txs = [[f for t in steps[a:b] for f in t] for a, b in pairwise([0, *accumulate(counts)])]
    return [[*parts.front, *txs[0]], *txs[1:]]


def proof_hash(txs: Sequence[Sequence[int]]) -> int:
    """H(…H(H(tx₀), H(tx₁))…, H(txₘ)): the hash a session records its proof under
    (`poseidon_hash_span(proof)` for one transaction, as `verify`)."""
    acc = hash_many(txs[0])
    for tx in txs[1:]:
        acc = poseidon_hash(acc, hash_many(tx))
    return acc


@dataclass(frozen=True)
class _Opening:
    """One opening a session verifies: its statement, proof, parameters and query phase."""

    statement: list[tuple[Commitment, list[Claim]]]
    proof: OpeningProof
    params: PcsParams
    phase: QueryPhase

    @property
    def layout(self) -> BatchLayout:
        return BatchLayout.of([c.n_vars for c, _ in self.statement], self.params.log_arity)

    @property
    def n_trees(self) -> int:
        return sum(self.layout.group_trees(g) for g in range(len(self.layout.groups)))


def _settled(flat: list[int], sent: int) -> tuple[list[_Opening], list[int]]:
    """A model walk's calldata read to its settlement (`sent` parts), the witness opening's
    part not yet: the committed tensors' opening with its front verified (none if no tensor
    is committed) and the walk settled on the channel that front leaves — before its queries'
    draws, which the contract takes from the query seed (`settled_walk_state`)."""
    replay = replay_graph_calldata(flat, sent)
    assert replay.settled is not None
    settlement, channel, committed, _ = replay.settled
    # Python's front checks the counts of the opening's trees too: read them (as calldata),
    # past the witness opening's part and its steps.
    reader = replay.reader
    witness_opening = reader.witness_front()
    reader.skip_steps(2 * len(witness_commitments(reader.statement)) if witness_opening else 0)
    opening, _ = reader.openings(settlement.opening, witness_opening)
    openings = _walk_openings(channel, committed, opening, [], None)
    if not openings:
        return [], settled_walk_state(channel.digest, channel.n_draws)
    return openings, settled_walk_state(int(openings[0].phase.query_seed), 0)


def _stepping(flat: list[int], sent: int, steps: int) -> tuple[int, list[_Opening], list[int]]:
    """A model walk's calldata read to its witness opening's front and `steps` of its step
    parts (`sent` parts in all): the model id, the committed tensors' opening with its front
    verified, and the witness opening's front part way (`witness_stage_state`)."""
    replay = replay_graph_calldata(flat, sent)
    assert replay.settled is not None and replay.witness_opening is not None
    settlement, channel, committed, witness = replay.settled
    # Python's front checks the counts of the opening's trees too: read them (as calldata),
    # past the steps not sent yet.
    replay.reader.skip_steps(2 * len(witness) - steps)
    opening, witness_opening = replay.reader.openings(settlement.opening, replay.witness_opening)
    assert witness_opening is not None
    openings = _walk_openings(channel, committed, opening, [], None)
    polys = witness_polys(replay.reader.statement)
    params = witness_params(polys.commitments[0])
    front = FrontReplay.start(params, polys.commitments, witness_opening, fork(channel, TAG))
    claims = [on for _, on in witness]
    front.absorb(claims[: min(steps, len(claims))])
    front.reduce(claims[: max(0, steps - len(claims))])
    b = replay.reader.statement.binding
    return (NO_MODEL if b is None else b.model_id), openings, witness_stage_state(front, polys)


def witness_stage_state(front: FrontReplay, polys: WitnessPolys) -> list[int]:
    """Cairo's `WitnessStage` by Serde: the `FrontReplay` on its Blake2s channel (its digest's
    eight little-endian words and its draws), then the `WitnessPolys`."""
    proof = front.proof
    assert isinstance(front.channel.digest, bytes)
    rounds = [
        [len(r.rounds), *(f for sent in r.rounds for f in _listed([c.pack(1) for c in sent]))]
        for r in (proof.merge, proof.fold)
    ]
    return [
        *struct.unpack("<8I", front.channel.digest),
        front.channel.n_draws,
        *_listed([c.n_vars for c in front.commitments]),
        *_u256s([c.root for c in front.commitments]),
        *rounds[0],
        *_listed([v.pack(1) for v in proof.merged_values]),
        *rounds[1],
        *_u256s(proof.layer_roots),
        proof.final_value.pack(1),
        proof.pow_nonce,
        front.absorbed,
        front.reduced,
        int(front.aligned),
        *_listed([x.pack(1) for x in front.longest]),
        *_listed([v.pack(1) for v in front.values]),
        *_listed([x.pack(1) for x in front.point]),
        *(x.pack(1) for x in (front.alpha, front.power, front.claim, front.expected)),
        HASH_TAGS[polys.commitments[0].hash],
        *_listed([c.n_vars for c in polys.commitments]),
        *_u256s([c.root for c in polys.commitments]),
        len(polys.sources),
        *(f for on in polys.sources for f in [len(on), *(x for pair in on for x in pair)]),
        polys.tables_from,
    ]


def _openings(flat: list[int]) -> tuple[int, list[_Opening]]:
    """The model id and the openings of a proof's calldata, each with its front verified in
    the contract's order: a walk's (or a graph's) committed tensors' opening on its channel,
    then its witness opening on a Blake2s fork of it; a PCS opening (kind 2) alone."""
    if is_graph(flat):
        replay = replay_graph_calldata(flat)
        assert replay.settled is not None
        settlement, channel, committed, witness = replay.settled
        opening, witness_opening = replay.reader.openings(
            settlement.opening, replay.witness_opening
        )
        b = replay.reader.statement.binding
        openings = _walk_openings(channel, committed, opening, witness, witness_opening)
        return (NO_MODEL if b is None else b.model_id), openings
    if not is_walk(flat):
        decoded = calldata.decode(flat)
        assert isinstance(decoded, PcsOpening)
        statement, proof = decoded.statement, decoded.proof
        params = statement_params(statement, POSEIDON_PARAMS)
        phase = verify_front(statement, proof, params, Poseidon252Channel())
        return NO_MODEL, [_Opening(statement, proof, params, phase)]
    front = decode_walk_front(flat)
    spec = LAYERS[front.layer_kind]
    channel, claims = replay_layer(spec, front.proof)
    walk = read_walk_groups(flat, front.groups_at, front.proof)
    st = walk.statement
    openings = _walk_openings(
        channel,
        committed_batch(st.committed, claims.committed),
        walk.opening,
        witness_batch(spec, st, claims.witness),
        walk.witness_opening,
    )
    return (NO_MODEL if st.binding is None else st.binding.model_id), openings


def _walk_openings(
    channel: Poseidon252Channel,
    committed: list[tuple[Commitment, list[Claim]]],
    opening: OpeningProof | None,
    witness: list[tuple[Commitment, list[Claim]]],
    witness_opening: OpeningProof | None,
) -> list[_Opening]:
    """A walk's or a graph's openings that are present, each with its front verified: the
    committed tensors' on the channel (which it leaves as the witness opening's fork finds
    it), then the witness's on a Blake2s fork of it."""
    openings = []
    if opening is not None:
        params = statement_params(committed, POSEIDON_PARAMS)
        phase = verify_front(committed, opening, params, channel)
        openings.append(_Opening(committed, opening, params, phase))
    if witness_opening is not None:
        params = witness_params(witness[0][0])
        phase = verify_front(witness, witness_opening, params, fork(channel, TAG))
        openings.append(_Opening(witness, witness_opening, params, phase))
    return openings


def session_state(
    parts: CalldataParts, counts: Sequence[int], staged: bool = False
) -> list[int] | None:
    """The serialized `Session` after transactions carrying `counts` parts after the front
    (`parts.steps`: a model walk's parts, then the trees; None once every group of every
    opening is checked: the session is over), opened `staged` or not (a model walk's
    statement read from the caller's staging and what its nodes left stored, or the statement
    carried in the state while the walk goes on and the rest relayed). Raises what the
    verifier raises if a part
    checked so far is refused: the contract reverts that transaction with the same name. A
    layer proof's binding is taken as registered: the contract checks it against its registry
    in the first transaction, after the trees it carries (`registry.check_walk` mirrors
    that)."""
    flat, sent = parts.flat, sum(counts)
    model_id, openings, walk, front, certified = NO_MODEL, [], [], [], []
    if sent < parts.walked - 1:
        walk = graph_walk_state(replay_graph_calldata(flat, sent).walk)
    elif sent == parts.walked - 1:
        openings, walk = _settled(flat, sent)
        sent = 0
    elif sent < len(parts.walk):
        model_id, openings, front = _stepping(flat, sent, sent - parts.walked)
        sent = 0
    else:
        model_id, openings = _openings(flat)
        sent -= len(parts.walk)
        if is_walk(flat):
            certified = certified_keys(decode_walk_front(flat).proof.statement)
    statement = calldata.io_felts(flat) if walk and not staged else []
    over = not walk and not front and sent >= sum(o.n_trees for o in openings)
    phases = []
    for o in openings:
        phases.append(_phase_state(o, min(sent, o.n_trees)))
        sent = max(0, sent - o.n_trees)
    if over:
        return None
    return [
        flat[1],
        model_id,
        hash_many(calldata.io_felts(flat)),
        proof_hash(transactions(parts, counts)),
        len(phases),
        *(f for p in phases for f in p),
        *_listed(walk),
        *_listed(statement),
        *_listed(front),
        *_listed(certified),
        int(staged),
    ]


def graph_walk_state(walk: GraphWalk) -> list[int]:
    """Cairo's `GraphWalk` by Serde (docs/cairo-verifier.md, "Sessions"): the nodes left, the
    channel, the claims pending on tensors (in the order the walk first left them), those
    drawn at the start on the committed outputs, and whether the settlement is verified (not
    yet). The statement is beside it in the state unless the session was opened `staged`; its
    checks and what each verified node left on weights, witness and tables the caller relays
    (the contract emits them, `SessionKept`), or, opened `staged`, the contract stores."""
    committed = walk.statement.committed_outputs()
    opened = {n: c for n, c in walk.weight_claims.items() if n in committed}
    return [
        walk.left,
        walk.channel.digest,
        walk.channel.n_draws,
        *_claims_on(walk.claims),
        *_claims_on(opened),
        0,
    ]


def settled_walk_state(digest: int, n_draws: int) -> list[int]:
    """Cairo's `GraphWalk` by Serde once the settlement is verified, its witness opening's
    front not yet: no node left, the channel (`digest`, `n_draws`) as the committed tensors'
    opening's front leaves it (the contract draws that opening's queries from its seed, not
    from the channel), no claims (the settlement took them in), settled."""
    return [0, digest, n_draws, 0, 0, 1]


def _claims_on(claims: dict[str, list[Claim]]) -> list[int]:
    """Cairo's `Span<ClaimsOn>`: per entry its name and its claims."""
    return [len(claims), *(f for n, c in claims.items() for f in [short_string(n), *_claims(c)])]


def _claims(claims: Sequence[Claim]) -> list[int]:
    """Cairo's `Span<Claim>`: per claim its point (a span of QM31s) and its value."""
    return [
        len(claims),
        *(f for c in claims for f in [*_listed([x.pack(1) for x in c.point]), c.value.pack(1)]),
    ]


def _phase_state(o: _Opening, trees: int) -> list[int]:
    """Cairo's `QueryPhase` by Serde after the opening's first `trees` tree parts were checked.
    `pending` hashes the last group checked against the next layer (the last group is checked
    against the final value instead), `partial` the cut group's sum so far."""
    statement, params, phase, layout = o.statement, o.params, o.phase, o.layout
    done, partial = layout.tree_position(trees), []
    outputs = list(islice(verify_groups(statement, o.proof, params, phase), done[0]))
    layered = min(done[0], len(layout.groups) - 1)
    pending = (
        hash_many(pack_qm31s(_per_block(phase, layout, layered - 1, outputs[layered - 1])))
        if layered
        else 0
    )
    if done[1]:
        g, trees_ = done[0], range(done[1])
        values = fold_trees(
            statement, o.proof, params, phase, g, trees_, outputs[-1] if g else None
        )
        partial = [v.pack(1) for v in _per_block(phase, layout, g, values)]
    qm31s = [*_listed([b.pack(1) for b in phase.betas]), *_listed([r.pack(1) for r in phase.rhos])]
    return [
        HASH_TAGS[params.hash],
        *_listed([c.n_vars for c, _ in statement]),
        *_u256s([c.root for c, _ in statement]),
        *_u256s(o.proof.layer_roots),
        *qm31s,
        o.proof.final_value.pack(1),
        *_query_seed(phase.query_seed),
        *done,
        pending,
        *_listed(partial),
    ]


def _per_block(phase: QueryPhase, layout: BatchLayout, g: int, values: np.ndarray) -> list[QM31]:
    """Every query's value at group g's end as Cairo keeps it: one per distinct block q >> e,
    blocks in increasing order (`pending` hashes them, a cut group's `partial` lists them)."""
    _, first = np.unique(phase.queries >> layout.groups[g][1], return_index=True)
    return [QM31(*map(int, v)) for v in values[first]]


def _query_seed(seed: int | bytes) -> list[int]:
    """Cairo's `QuerySeed` by Serde: variant 0 and a Poseidon252 digest, or variant 1 and a
    Blake2s digest's eight little-endian words."""
    if isinstance(seed, int):
        return [0, seed]
    return [1, *struct.unpack("<8I", seed)]


def _listed(felts: Sequence[int]) -> list[int]:
    """A span as Serde writes it: its length, then its items."""
    return [len(felts), *felts]


def _u256s(digests: Sequence[int]) -> list[int]:
    """A span of digests kept as u256 (either hash): each as its low and high 128 bits."""
    return [len(digests), *(f for d in digests for f in (d % (1 << 128), d >> 128))]


@dataclass
class Sessions:
    """The contract's open sessions, id -> (owner, state hash), the statements staged, (account,
    statement hash) -> (length, felts by position; unwritten ones read 0), and its session
    checks in its order: `open_session`
    (`session.owner`, then the proof) and `continue_session` (`session.unknown`,
    `session.owner`, `session.state`, `session.kept`, `session.empty`, while a model walk
    opened `staged` is not settled `session.statement`, then the parts). What a session keeps
    beside its state (a model walk's checks and records) the contract emits and the caller
    sends back; the mirror does not rebuild it, only whether the caller sent it back as
    emitted."""

    open: dict[int, tuple[int, int]] = field(default_factory=dict)
    staged: dict[tuple[int, int], tuple[int, dict[int, int]]] = field(default_factory=dict)

    def stage(
        self, caller: int, statement_hash: int, length: int, offset: int, felts: Sequence[int]
    ) -> None:
        """`stage`: felts `offset`.. of the caller's statement of that hash, `length` felts."""
        _, values = self.staged.get((caller, statement_hash), (0, {}))
        values.update(enumerate(felts, offset))
        self.staged[caller, statement_hash] = (length, values)

    def statement(self, account: int, statement_hash: int) -> list[int]:
        """What the contract reads of `account`'s staged statement of that hash."""
        length, values = self.staged.get((account, statement_hash), (0, {}))
        return [values.get(i, 0) for i in range(length)]

    def check_open(self, caller: int, session_id: int) -> None:
        owner, _ = self.open.get(session_id, (caller, 0))
        if owner != caller:
            raise VerificationError("session.owner", "another account's session")

    def check_step(
        self,
        caller: int,
        session_id: int,
        state: Sequence[int],
        parts: Sequence[int],
        staged: bool = False,
        kept_is_last: bool = True,
    ) -> None:
        """`staged`: the session's model walk is not settled (its state's walk is not empty)
        and the session was opened `staged`; its statement, whose hash is the state's io hash,
        must then be staged by the owner. `kept_is_last`: the caller sends back what the last
        transaction kept, as its `SessionKept` events carried it."""
        if session_id not in self.open:
            raise VerificationError("session.unknown", f"no open session {session_id:#x}")
        owner, state_hash = self.open[session_id]
        if owner != caller:
            raise VerificationError("session.owner", "another account's session")
        if hash_many(state) != state_hash:
            raise VerificationError("session.state", "not the session's current state")
        if not kept_is_last:
            raise VerificationError("session.kept", "not what the session's last step kept")
        if not parts:
            raise VerificationError("session.empty", "a step checks at least one part")
        if staged and hash_many(self.statement(owner, state[2])) != state[2]:
            raise VerificationError("session.statement", "the walk's statement is not staged")

    def advance(self, caller: int, session_id: int, state: list[int] | None) -> None:
        """After an accepted transaction: the session goes on with `state`, or is over."""
        if state is None:
            self.open.pop(session_id, None)
        else:
            self.open[session_id] = (caller, hash_many(state))
