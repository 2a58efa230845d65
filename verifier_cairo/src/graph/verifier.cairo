//! Model-walk verifier (mirror of prover/graph/verifier.py `GraphWalk`): the structure
//! (`check_structure`), the transcript and the outputs' claims (`start`); then every node's
//! statement checked in order by its kind's walk class, which returns the bounds its hidden
//! outputs get, and after the last the walk's soundness (`check_next`); then the nodes last to
//! first (`step`) — each output's claims merged, the layer verified by its class on the walk's
//! channel, its claims routed to its producers —, the public inputs settled (`settle`, which
//! leaves the committed tensors' opening), then the witness opening's part (`witness_front`,
//! with where its polynomials' claims are: `witness_polys`). A session carries a `GraphWalk`
//! between transactions, and its main contract keeps the statement, the nodes' checks and what
//! each verified node left (`NodeClaims`) in storage. What is left are the openings, which the
//! main contract verifies (`walk::verifier::verify_fronts`, the witness opening's front in
//! stages, then `continue_openings`).

use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::QM31;
use crate::layers::{Classes, call_class, class_of, opening_claims};
use crate::merkle::hashers::HASH_BLAKE2S;
use crate::mle::log2_padded;
use crate::padding::verify_outside_zero;
use crate::pcs::queries::pow2;
use crate::pcs::proof::{Claim, OpeningFront, PolyStatement};
use crate::sameply::verify_sameply;
use crate::walk::calldata::{names_of, order_key, with_committed};
use crate::walk::contract::NodeCheck;
use crate::walk::layer::{ClaimsOn, LayerClaims};
use crate::walk::proof::{LayerProof, Named, NodeProof, OpeningProof, Settlement};
use crate::walk::statement::{OutputClaims, PublicStatement, draw_claims};
use crate::walk::tensor::{TensorCommitment, Tensors, TensorsTrait, tensor_vars};
use crate::walk::verifier::{Opening, front_of, settle_claims};
use super::calldata::GraphCalldata;
use super::records::{NodeClaims, WitnessPolys};
use super::soundness::{ErrorTotal, ErrorTotalTrait};
use super::statement::absorb_graph;
use super::views::{Bounds, known_of, node_statement, unseen_shape};

/// A model walk between two parts (Python `GraphWalk`; docs/cairo-verifier.md, "Sessions"):
/// the nodes `left` to verify (the next is node `left − 1`, once every node's statement is
/// checked: `Checks`), the channel, the claims pending on graph tensors (in the order first
/// left) and the claims drawn at the start on the committed outputs, which their opening
/// proves; once `settled` (the settlement verified, the witness opening's front not yet) only
/// the channel, as the committed tensors' opening leaves it. What each verified node leaves on
/// weights, its witness and its tables is its `NodeClaims` (`records`), which a session keeps
/// in storage, not in the walk.
#[derive(Drop, Serde)]
pub struct GraphWalk {
    pub left: u32,
    channel: Poseidon252Channel,
    claims: Array<ClaimsOn>,
    opened: Array<ClaimsOn>,
    pub settled: bool,
}

/// What the statements' checks leave the walk (Python `StatementChecks`): the bound of each
/// hidden tensor produced so far, each checked node's fixed tables, the soundness terms so far,
/// and the counts the openings' terms need (the claims on the witness opening, the reads of
/// committed tensors, its largest polynomial). Between a session's transactions the main
/// contract keeps each node's `NodeCheck` (by Serde, in node order), from which `checks_of`
/// rebuilds it.
#[derive(Drop)]
pub struct Checks {
    bounds: Bounds,
    tables: Array<Span<(felt252, TensorCommitment)>>,
    total: ErrorTotal,
    claims: u32,
    reads: u32,
    largest: Option<u32>,
}

pub fn no_checks() -> Checks {
    Checks {
        bounds: array![],
        tables: array![],
        total: ErrorTotalTrait::new(),
        claims: 0,
        reads: 0,
        largest: None,
    }
}

/// The next node's statement (node `checked(checks)`) checked by its kind's class, each
/// producer before its consumers (Python `StatementChecks.check_next`), then taken in
/// (`take_check`); after the last node, the graph's soundness (`graph.params`). Panics with the
/// name of the failed check; returns the node's check, for the session to keep.
pub fn check_next(graph: @GraphCalldata, ref checks: Checks, classes: Classes) -> NodeCheck {
    let index = checked(@checks);
    let node = graph.statement.nodes[index];
    let st = node_statement(graph, @checks.bounds, index);
    let check = check_node(class_of(classes, *node.kind), @st, classes);
    take_check(graph, ref checks, @check);
    if all_checked(graph, @checks) {
        expect_sound(graph, @checks);
    }
    check
}

/// The checks the kept `NodeCheck`s of the first nodes give (`records`: their Serde, in node
/// order), each taken in as when it was made.
pub fn checks_of(graph: @GraphCalldata, records: Span<felt252>) -> Checks {
    let mut records = records;
    let mut checks = no_checks();
    while !records.is_empty() {
        let check: NodeCheck = Serde::deserialize(ref records).unwrap();
        take_check(graph, ref checks, @check);
    }
    checks
}

/// A node's check taken in (the next node's): the bounds of the hidden tensors it produces,
/// its error terms, its claims on the witness opening, its reads of committed tensors, its
/// witness's and tables' sizes, and its tables.
fn take_check(graph: @GraphCalldata, ref checks: Checks, check: @NodeCheck) {
    let index = checked(@checks);
    let node = graph.statement.nodes[index];
    let mut j = 0;
    for entry in node.outputs.span() {
        if graph.outputs.find(*entry.value).is_none() {
            checks.bounds.append((*entry.value, known_of(*(*check.bounds)[j])));
        }
        j += 1;
    }
    checks.total.add_layer(*check.error_count);
    checks.claims += opening_claims(*node.kind);
    checks.reads += node.weights.len();
    for entry in node.inputs.span() {
        if graph.committed_inputs.find(*entry.value).is_some() {
            checks.reads += 1;
        }
    }
    for c in (*graph.witness)[index].commitments() {
        checks.largest = Some(larger(checks.largest, *c.n_vars));
    }
    for (_, c) in *check.tables {
        checks.largest = Some(larger(checks.largest, *c.n_vars));
    }
    checks.tables.append(*check.tables);
}

/// Node `index`'s statement as it was checked (`index` below `checked`).
pub fn view(graph: @GraphCalldata, checks: @Checks, index: u32) -> PublicStatement {
    node_statement(graph, checks.bounds, index)
}

/// How many nodes' statements are checked (the first ones).
pub fn checked(checks: @Checks) -> u32 {
    checks.tables.len()
}

pub fn all_checked(graph: @GraphCalldata, checks: @Checks) -> bool {
    checked(checks) == graph.statement.nodes.len()
}

/// The transcript (the statement absorbed) and the claims drawn on the public and committed
/// outputs in name order, then the committed outputs' `values` absorbed (Python
/// `graph_output_claims`; `walk.output_values` unless there is one value per committed output);
/// a committed output's claim also waits for the opening.
pub fn start(graph: @GraphCalldata, values: @Array<Named<QM31>>) -> GraphWalk {
    let mut channel: Poseidon252Channel = Default::default();
    absorb_graph(ref channel, graph);
    let committed = *graph.committed_outputs;
    assert(names_of(values) == committed.names, 'walk.output_values');
    let outputs = with_committed(*graph.outputs, committed);
    let drawn = draw_claims(ref channel, outputs, values);
    let (mut claims, mut opened) = (array![], array![]);
    let mut i = 0;
    for name in drawn.names {
        let on = ClaimsOn { name: *name, claims: array![*drawn.claims[i]].span() };
        claims.append(on);
        if committed.find(*name).is_some() {
            opened.append(on);
        }
        i += 1;
    }
    GraphWalk { left: graph.statement.nodes.len(), channel, claims, opened, settled: false }
}

/// Node `left − 1` from its proof, every node checked: its outputs' claims merged, its layer
/// verified by its kind's class on its statement as checked, its claims routed to its
/// producers; returns the walk and what the node leaves on its weights, witness and tables.
pub fn step(
    walk: GraphWalk, graph: @GraphCalldata, checks: @Checks, node_proof: @NodeProof, classes: Classes,
) -> (GraphWalk, NodeClaims) {
    let GraphWalk { left, mut channel, claims: mut pending, opened, settled } = walk;
    let i = left - 1;
    let node = graph.statement.nodes[i];
    assert(names_of(node_proof.outputs) == names_of(node.outputs), 'graph.claims');
    let (mut locals, mut merged) = (array![], array![]);
    let mut j = 0;
    for entry in node.outputs.span() {
        let on = match take(ref pending, *entry.value) {
            Some(on) => on,
            None => array![].span(),
        };
        let n_vars = tensor_vars(shape_of(graph, *entry.value));
        let proof = node_proof.outputs[j].value;
        merged.append(verify_sameply(proof, on, n_vars, ref channel));
        locals.append(*entry.name);
        j += 1;
    }
    let outputs = OutputClaims { names: locals.span(), claims: merged.span() };
    let st = view(graph, checks, i);
    let (left_claims, next) = verify_node(
        class_of(classes, st.kind), node_proof.layer, @st, outputs, channel, classes,
    );
    assert(names_of_claims(left_claims.inputs) == names_of(node.inputs), 'graph.claims');
    assert(names_of_claims(left_claims.weights) == names_of(node.weights), 'graph.claims');
    let mut k = 0;
    for on in left_claims.inputs {
        add(ref pending, *node.inputs[k].value, *on.claims);
        k += 1;
    }
    let mut weights = array![];
    for on in left_claims.weights {
        weights.append(*on.claims);
    }
    expect_same_tables(checks, i);
    let (own, tables) = witness_claims(*(*graph.witness)[i], *checks.tables[i], left_claims);
    let walk = GraphWalk { left: i, channel: next, claims: pending, opened, settled };
    (walk, NodeClaims { weights: weights.span(), own, tables })
}

/// What the walked nodes left on weights (`records`: their `NodeClaims`, last node first, one
/// per node; their weights' parts suffice) gathered for the committed tensors' opening, after
/// the claims drawn on committed outputs (`opened`): by name, in the order first left.
fn gather_weights(
    graph: @GraphCalldata, opened: Array<ClaimsOn>, records: Span<NodeClaims>,
) -> Array<ClaimsOn> {
    let mut weight_claims = opened;
    let n = graph.statement.nodes.len();
    assert(records.len() == n, 'graph.shape');
    for k in 0..n {
        let node = graph.statement.nodes[n - 1 - k];
        let mut j = 0;
        for claims in *records[k].weights {
            add(ref weight_claims, *node.weights[j].value, *claims);
            j += 1;
        }
    }
    weight_claims
}

/// After the last node (the settlement part): the committed inputs' padding shown zero
/// (`padding.empty_rows`), the public inputs' settlements, then whether the committed tensors'
/// opening is present (`walk.opening`). Its statement is what the nodes left on weights
/// (`records`, every node's `NodeClaims`, last node first: their weights' parts suffice) and
/// the claims on committed inputs. Returns the walk settled and the committed tensors' opening
/// to verify on its channel (the main contract does: `walk::verifier::verify_fronts`).
pub fn settle(
    walk: GraphWalk,
    graph: @GraphCalldata,
    records: Span<NodeClaims>,
    settlement: @Settlement,
) -> (GraphWalk, Option<Opening>) {
    let GraphWalk { left, mut channel, claims: mut pending, opened, settled } = walk;
    assert(left == 0 && !settled, 'graph.shape');
    let mut weight_claims = gather_weights(graph, opened, records);
    let padded = padded_inputs(graph);
    assert(names_of(settlement.padding) == padded.names, 'padding.empty_rows');
    let mut i = 0;
    for t in padded.tensors {
        let mut dim_vars = array![];
        for d in *t.shape {
            dim_vars.append(log2_padded(*d));
        }
        let zero = settlement.padding[i].value;
        let point = verify_outside_zero(zero, 1, *t.shape, dim_vars.span(), ref channel);
        let claim = Claim { point, value: *zero.values[0] };
        add(ref pending, *padded.names[i], array![claim].span());
        i += 1;
    }
    for name in *graph.committed_inputs.names {
        if let Some(on) = take(ref pending, *name) {
            weight_claims.append(ClaimsOn { name: *name, claims: on });
        }
    }
    let mut inputs = array![];
    for name in *graph.inputs.names {
        match take(ref pending, *name) {
            Some(on) => inputs.append(ClaimsOn { name: *name, claims: on }),
            None => core::panic_with_felt252('walk.input_claims'),
        }
    }
    assert(pending.is_empty(), 'walk.input_claims');
    settle_claims(
        *graph.inputs,
        inputs.span(),
        settlement.inputs,
        ref channel,
        'walk.input_claims',
        'walk.input_claim',
    );
    assert(settlement.weights.is_empty(), 'walk.weight_claims');
    let committed = committed_statement(*graph.committed, weight_claims.span());
    assert(settlement.opening.is_some() == !committed.is_empty(), 'walk.opening');
    let committed = match settlement.opening {
        Some(opening) => Some(
            Opening {
                hash: (*graph.params).unwrap().hash, statement: committed, front: front_of(opening),
            },
        ),
        None => None,
    };
    (settled_walk(channel), committed)
}

/// The walk once settled: no node left, no claims, the channel (after the settlement, then as
/// the committed tensors' opening's front leaves it: the witness opening forks it).
pub fn settled_walk(channel: Poseidon252Channel) -> GraphWalk {
    GraphWalk { left: 0, channel, claims: array![], opened: array![], settled: true }
}

/// The channel a walk carries.
pub fn channel_of(walk: @GraphWalk) -> Poseidon252Channel {
    *walk.channel
}

/// The witness opening's part (`opening`, read after the settlement) against its
/// polynomials (`witness_polys`): `walk.witness_opening` unless it is present exactly when
/// claims are due. Returns its front.
pub fn witness_front(polys: @WitnessPolys, opening: @Option<OpeningProof>) -> Option<OpeningFront> {
    assert(opening.is_some() == !polys.poly_vars.is_empty(), 'walk.witness_opening');
    match opening {
        Some(opening) => Some(front_of(opening)),
        None => None,
    }
}

/// The witness opening's polynomials (Python `WitnessClaims.batch`: every node's own
/// commitments, nodes in order, names in order, then the fixed tables by name) and where
/// their claims are: a node's own commitment's in its record, a table's in the records of the
/// nodes that read it, joined in the walk's order (last node first), its pinned commitment the
/// first's (`expect_same_tables` made them all one).
pub fn witness_polys(graph: @GraphCalldata, checks: @Checks) -> WitnessPolys {
    let (mut vars, mut roots, mut sources) = (array![], array![], array![]);
    let mut hash = HASH_BLAKE2S; // Python `DEFAULT_WITNESS_HASH`, while there is no polynomial
    let mut node = 0;
    for node_witness in *graph.witness {
        let mut slot = 0;
        for c in node_witness.commitments() {
            if vars.is_empty() {
                hash = *c.hash;
            }
            assert(*c.hash == hash, 'pcs.hash');
            vars.append(*c.n_vars);
            roots.append(*c.root);
            sources.append(array![(node, slot)].span());
            slot += 1;
        }
        node += 1;
    }
    let tables_from = vars.len();
    let mut tables: Array<(felt252, TensorCommitment, Span<(u32, u32)>)> = array![];
    let n = graph.statement.nodes.len();
    for k in 0..n {
        let node = n - 1 - k;
        let mut slot = 0;
        for (name, pinned) in *checks.tables[node] {
            tables = with_source(tables, *name, *pinned, (node, slot));
            slot += 1;
        }
    }
    for (_, pinned, from) in tables {
        assert(pinned.hash == hash, 'pcs.hash');
        vars.append(pinned.n_vars);
        roots.append(pinned.root);
        sources.append(from);
    }
    WitnessPolys {
        hash,
        poly_vars: vars.span(),
        poly_roots: roots.span(),
        sources: sources.span(),
        tables_from,
    }
}

/// `tables` (name order) with `source` added to table `name`'s, the table placed in name order
/// if new.
fn with_source(
    tables: Array<(felt252, TensorCommitment, Span<(u32, u32)>)>,
    name: felt252,
    pinned: TensorCommitment,
    source: (u32, u32),
) -> Array<(felt252, TensorCommitment, Span<(u32, u32)>)> {
    let mut next = array![];
    let mut placed = false;
    for (other, c, from) in tables {
        if !placed && other == name {
            let mut joined = array![];
            joined.append_span(from);
            joined.append(source);
            next.append((other, c, joined.span()));
            placed = true;
        } else {
            if !placed && order_key(name) < order_key(other) {
                next.append((name, pinned, array![source].span()));
                placed = true;
            }
            next.append((other, c, from));
        }
    }
    if !placed {
        next.append((name, pinned, array![source].span()));
    }
    next
}

/// The walk's soundness once every node is checked (Python `error_terms`): the nodes' terms,
/// the same-poly merges, the committed inputs' padding sum-checks, the committed tensors'
/// opening and the witness opening within 96 bits together (`graph.params`).
fn expect_sound(graph: @GraphCalldata, checks: @Checks) {
    let mut total = *checks.total;
    total.add_count(merges(graph));
    let padded = padded_inputs(graph).names.len();
    for _ in 0..padded {
        total.add_layer(None);
    }
    if let Some(params) = graph.params {
        let mut n_vars = 0;
        for c in (*graph.committed).commitments() {
            n_vars = core::cmp::max(n_vars, *c.n_vars);
        }
        let reads = *checks.reads + graph.committed_outputs.names.len() + padded;
        total.add_opening(params, n_vars, reads);
    }
    total.add_witness(*checks.largest, *checks.claims);
    total.expect_target();
}

/// The committed inputs whose shape has padding (Python `GraphStatement.padded_inputs`).
fn padded_inputs(graph: @GraphCalldata) -> Tensors {
    let inputs = *graph.committed_inputs;
    let (mut names, mut tensors) = (array![], array![]);
    let mut i = 0;
    for t in inputs.tensors {
        let mut padded = false;
        for d in *t.shape {
            padded = padded || pow2(log2_padded(*d)) != *d;
        }
        if padded {
            names.append(*inputs.names[i]);
            tensors.append(*t);
        }
        i += 1;
    }
    Tensors { names: names.span(), tensors: tensors.span() }
}

fn larger(a: Option<u32>, b: u32) -> u32 {
    match a {
        Some(a) => core::cmp::max(a, b),
        None => b,
    }
}

/// The walk's same-poly merges: at most one per tensor and weight, 2n + 1 counts each.
fn merges(graph: @GraphCalldata) -> u128 {
    let mut count: u128 = 0;
    for entry in graph.statement.hidden.span() {
        count += 2 * tensor_vars(entry.value.span()).into() + 1;
    }
    for group in array![*graph.inputs, *graph.outputs, *graph.committed].span() {
        for t in *group.tensors {
            count += 2 * tensor_vars(*t.shape).into() + 1;
        }
    }
    count
}

fn shape_of(graph: @GraphCalldata, name: felt252) -> Span<u32> {
    if let Some(t) = graph.outputs.find(name) {
        return t.shape;
    }
    unseen_shape(graph, name)
}

fn names_of_claims(claims: Span<ClaimsOn>) -> Span<felt252> {
    let mut names = array![];
    for on in claims {
        names.append(*on.name);
    }
    names.span()
}

/// Removes and returns the claims pending on `name`, if any entry is.
fn take(ref pending: Array<ClaimsOn>, name: felt252) -> Option<Span<Claim>> {
    let mut kept = array![];
    let mut found = None;
    for on in pending.span() {
        if *on.name == name {
            found = Some(*on.claims);
        } else {
            kept.append(*on);
        }
    }
    pending = kept;
    found
}

/// Appends `claims` to those pending on `name`.
fn add(ref pending: Array<ClaimsOn>, name: felt252, claims: Span<Claim>) {
    let mut next = array![];
    let mut found = false;
    for on in pending.span() {
        if *on.name == name {
            next.append(ClaimsOn { name, claims: concat(*on.claims, claims) });
            found = true;
        } else {
            next.append(*on);
        }
    }
    if !found {
        next.append(ClaimsOn { name, claims });
    }
    pending = next;
}

fn concat(a: Span<Claim>, b: Span<Claim>) -> Span<Claim> {
    let mut out = array![];
    for c in a {
        out.append(*c);
    }
    for c in b {
        out.append(*c);
    }
    out.span()
}

/// Python `WitnessClaims.add`: `graph.claims` unless the node leaves claims on exactly its
/// witness commitments and its tables; returns those on its own commitments (name order) and
/// on its tables (its check's order).
fn witness_claims(
    witness: Tensors, node_tables: Span<(felt252, TensorCommitment)>, left: LayerClaims,
) -> (Span<Span<Claim>>, Span<Span<Claim>>) {
    assert(left.witness.len() == witness.names.len() + node_tables.len(), 'graph.claims');
    let (mut own, mut tables) = (array![], array![]);
    for name in witness.names {
        own.append(claims_on(left.witness, *name));
    }
    for (name, _) in node_tables {
        tables.append(claims_on(left.witness, *name));
    }
    (own.span(), tables.span())
}

/// Python `WitnessClaims.add`: `graph.claims` if node `i` names a table as a node walked
/// before it (a later node) does, and it is another table.
fn expect_same_tables(checks: @Checks, i: u32) {
    let n = checks.tables.len();
    for (name, pinned) in *checks.tables[i] {
        for j in (i + 1)..n {
            for (other, c) in *checks.tables[j] {
                if other == name {
                    let same = c.hash == pinned.hash && c.root == pinned.root
                        && c.n_vars == pinned.n_vars;
                    assert(same, 'graph.claims');
                }
            }
        }
    }
}

fn claims_on(claims: Span<ClaimsOn>, name: felt252) -> Span<Claim> {
    for on in claims {
        if *on.name == name {
            return *on.claims;
        }
    }
    core::panic_with_felt252('graph.claims')
}

/// The committed weights' opening statement: each weight's claims, in name order.
fn committed_statement(weights: Tensors, claims: Span<ClaimsOn>) -> Span<PolyStatement> {
    let mut statement = array![];
    let mut i = 0;
    for c in weights.commitments() {
        let on = claims_on(claims, *weights.names[i]);
        statement.append(PolyStatement { root: *c.root, n_vars: *c.n_vars, claims: on });
        i += 1;
    }
    statement.span()
}

/// The node's statement check in its kind's walk class.
fn check_node(class_hash: starknet::ClassHash, st: @PublicStatement, classes: Classes) -> NodeCheck {
    let mut args = array![];
    st.kind.serialize(ref args);
    st.serialize(ref args);
    classes.serialize(ref args);
    let mut ret = call_class(class_hash, selector!("check_node"), args);
    Serde::deserialize(ref ret).unwrap()
}

/// The node's layer verified in its kind's walk class on the walk's channel.
fn verify_node(
    class_hash: starknet::ClassHash,
    layer: @LayerProof,
    st: @PublicStatement,
    outputs: OutputClaims,
    channel: Poseidon252Channel,
    classes: Classes,
) -> (LayerClaims, Poseidon252Channel) {
    let mut args = array![];
    layer.serialize(ref args);
    st.serialize(ref args);
    outputs.serialize(ref args);
    channel.serialize(ref args);
    classes.serialize(ref args);
    let mut ret = call_class(class_hash, selector!("verify_node"), args);
    Serde::deserialize(ref ret).unwrap()
}
