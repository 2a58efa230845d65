//! The model-walk verifier as a class of its own, which `CairnVerifier` calls by library_call
//! for calldata of kind 5 (docs/cairo-verifier.md, "Eight classes"): it reads and verifies a
//! graph proof up to its openings part by part — each node's statement check, in node order,
//! by the node's walk class, then the nodes, last first, by their layer verifiers, then the
//! settlement, then the witness opening's part —; a session's transaction may stop between
//! any two parts (`GraphStep::Walking`). No side effect: a session's main contract keeps the
//! statement, and the nodes' checks and what each verified node left (`records::Kept`): their
//! hash, the caller sending them back with the next transaction, or, in a session opened
//! `staged`, themselves in its storage; the main contract passes them here, or where they
//! are stored (a library call runs in its context): to the settlement, and for the witness
//! opening's polynomials (`witness_claims`).

use core::poseidon::poseidon_hash_span;
use crate::calldata::commitment_entry;
use crate::layers::Classes;
use crate::layers::range::model::declaration_key;
use crate::pcs::proof::{Claim, OpeningFront};
use crate::stored::read_span;
use crate::walk::contract::BindingCheck;
use crate::walk::verifier::WalkOpenings;
use crate::walk::tensor::TensorsTrait;
use super::calldata::{
    GraphCalldata, read_check, read_graph, read_node, read_settlement, read_statement,
    read_witness_front,
};
use super::records::{
    Kept, NodeClaims, NodeClaimsTrait, NodeRecord, Records, SessionRecords, WitnessPolys,
    witness_claims,
};
use super::statement::check_structure;
use super::verifier::{
    Checks, GraphWalk, all_checked, channel_of, check_next, checked, checks_of, no_checks, settle,
    start, step, witness_front, witness_polys,
};

/// Where a transaction leaves a model walk: part way (`GraphPause`), or with its openings
/// left to verify (`GraphOutcome`).
#[derive(Drop, Serde)]
pub enum GraphStep {
    Walking: GraphPause,
    Settled: GraphOutcome,
}

/// A model walk part way: its statement's felts (what `io_hash` hashes), its `GraphWalk` by
/// Serde (what the session's state carries), what this transaction adds to what the session
/// keeps (`Kept`: the `NodeCheck`s it made, the weights' parts and the witness records of the
/// nodes it verified), and if this transaction verified the settlement (not the witness
/// opening's part) the committed tensors' opening to verify on the walk's channel, after which
/// the walk is `settled_walk` of the channel it leaves.
#[derive(Drop, Serde)]
pub struct GraphPause {
    pub io: Span<felt252>,
    pub walk: Span<felt252>,
    pub kept: Kept,
    pub settled: Option<WalkOpenings>,
}

/// The witness opening's front and polynomials, and, for a whole proof, the claims on every
/// polynomial (a session reads them from its storage, `witness_claims`).
#[derive(Drop, Serde)]
pub struct WitnessOpening {
    pub polys: WitnessPolys,
    pub front: OpeningFront,
    pub claims: Span<Span<Claim>>,
}

/// A model walk verified up to its openings: the hash of its statement's felts, its binding to
/// check against the registry, the declarations it relies on (each must have been certified),
/// the committed tensors' opening to verify on the walk's channel unless an earlier
/// transaction verified the settlement, the witness opening on a Blake2s fork of what that
/// leaves, the witness records of the nodes this transaction verified, and where the parts
/// after the witness opening's front start (`groups_at`).
#[derive(Drop, Serde)]
pub struct GraphOutcome {
    pub io_hash: felt252,
    pub binding: Option<BindingCheck>,
    pub declared: Span<felt252>,
    pub openings: WalkOpenings,
    pub witness: Option<WitnessOpening>,
    pub witnessed: Span<NodeRecord>,
    pub groups_at: u32,
}

#[starknet::interface]
pub trait ICairnGraphVerifier<TContractState> {
    /// Reads the header, statement and committed outputs' values of `proof`, checks the
    /// statement's structure, starts the walk and verifies the parts that follow (all of them
    /// when `whole`: every node's statement check, the nodes, last first, the settlement, the
    /// witness opening's front); panics with the name of the failed check. A graph's binding,
    /// if any, goes to the main contract to check against the registry; `groups_at` counts from the start of
    /// `proof`.
    fn start_graph(
        self: @TContractState, proof: Span<felt252>, whole: bool, classes: Classes,
    ) -> GraphStep;
    /// Continues the walk `walk` (a `GraphWalk` by Serde) of the statement `statement` (its
    /// felts), whose first nodes' checks are `checks` (their `NodeCheck`s by Serde), with the
    /// next `parts`; `groups_at` counts from the start of `parts`. The caller passes only what
    /// its session holds, which `start_graph` and the earlier transactions made; `walked` is
    /// what the nodes verified so far left on weights, read at the settlement.
    fn continue_graph(
        self: @TContractState,
        statement: Span<felt252>,
        checks: Span<felt252>,
        walk: Span<felt252>,
        parts: Span<felt252>,
        walked: Walked,
        classes: Classes,
    ) -> GraphStep;
    /// The claims on witness polynomials `from`.. (`count` of them) of `polys`, from the
    /// nodes' witness records a session keeps (relayed or stored).
    fn witness_claims(
        self: @TContractState,
        polys: WitnessPolys,
        from: u32,
        count: u32,
        records: SessionRecords,
    ) -> Span<Span<Claim>>;
}

/// What the nodes a session verified in earlier transactions left on weights: relayed by its
/// caller (`Kept::walked`: their `NodeClaims`' weights' parts by Serde, last node first), or
/// stored under a key (a session opened `staged`; `stored::read_span`).
#[derive(Copy, Drop, Serde)]
pub enum Walked {
    Kept: Span<felt252>,
    Stored: felt252,
}

pub fn start_graph(proof: Span<felt252>, whole: bool, classes: Classes) -> GraphStep {
    let mut data = proof;
    let (graph, values) = read_graph(ref data);
    check_structure(@graph);
    let walk = start(@graph, @values);
    let earlier = Walked::Kept(array![].span());
    walk_parts(@graph, no_checks(), walk, data, whole, classes, proof.len(), earlier)
}

pub fn continue_graph(
    statement: Span<felt252>,
    checks: Span<felt252>,
    walk: Span<felt252>,
    parts: Span<felt252>,
    walked: Walked,
    classes: Classes,
) -> GraphStep {
    let mut statement = statement;
    let graph = read_statement(ref statement, false);
    let checks = checks_of(@graph, checks);
    let mut walk = walk;
    let walk: GraphWalk = Serde::deserialize(ref walk).unwrap();
    walk_parts(@graph, checks, walk, parts, false, classes, parts.len(), walked)
}

/// Reads and verifies the parts in `data` (all of them when `whole`): the nodes' statement
/// checks until every node is checked, the nodes' proofs until none is left, the settlement,
/// then the witness opening's front; `total` is the length of the span `data` ends. `earlier`
/// is what the nodes verified in earlier transactions left on weights.
fn walk_parts(
    graph: @GraphCalldata,
    checks: Checks,
    walk: GraphWalk,
    data: Span<felt252>,
    whole: bool,
    classes: Classes,
    total: u32,
    earlier: Walked,
) -> GraphStep {
    let mut data = data;
    let (mut checks, mut walk) = (checks, walk);
    let (mut made, mut walked): (Array<felt252>, Array<NodeClaims>) = (array![], array![]);
    while !all_checked(graph, @checks) && (whole || !data.is_empty()) {
        read_check(ref data, checked(@checks));
        check_next(graph, ref checks, classes).serialize(ref made);
    }
    let first = walk.left;
    while all_checked(graph, @checks) && walk.left > 0 && (whole || !data.is_empty()) {
        let node_proof = read_node(ref data, *graph.statement.nodes[walk.left - 1].kind);
        let (next, left) = step(walk, graph, @checks, @node_proof, classes);
        walked.append(left);
        walk = next;
    }
    let witnessed = node_records(walked.span(), first);
    let mut settled = None;
    let ready = all_checked(graph, @checks) && walk.left == 0;
    if ready && !walk.settled && (whole || !data.is_empty()) {
        let settlement = read_settlement(ref data);
        let records = records_of(earlier, walked.span());
        let (next, committed) = settle(walk, graph, records, @settlement);
        settled = Some(committed);
        walk = next;
    }
    if !walk.settled || (!whole && data.is_empty()) {
        let (mut state, mut weights) = (array![], array![]);
        walk.serialize(ref state);
        for left in walked.span() {
            left.weights_part().serialize(ref weights);
        }
        let settled = match settled {
            Some(committed) => Some(
                WalkOpenings { channel: channel_of(@walk), committed, witness: None },
            ),
            None => None,
        };
        let pause = GraphPause {
            io: *graph.io,
            walk: state.span(),
            kept: Kept { checks: made.span(), walked: weights.span(), witnessed },
            settled,
        };
        return GraphStep::Walking(pause);
    }
    let opening = read_witness_front(ref data);
    let committed = match settled {
        Some(committed) => committed,
        None => None,
    };
    let polys = witness_polys(graph, @checks);
    let witness = match witness_front(@polys, @opening) {
        Some(front) => {
            // A whole proof's records are all held; a session reads them from its storage.
            let claims = if whole {
                let n = polys.poly_vars.len();
                witness_claims(@polys, Records::Held(walked.span()), 0, n)
            } else {
                array![].span()
            };
            Some(WitnessOpening { polys, front, claims })
        },
        None => None,
    };
    let openings = WalkOpenings { channel: channel_of(@walk), committed, witness: None };
    let io_hash = poseidon_hash_span(*graph.io);
    let (binding, declared) = (binding_check(graph), declared_keys(graph));
    let groups_at = total - data.len();
    GraphStep::Settled(
        GraphOutcome { io_hash, binding, declared, openings, witness, witnessed, groups_at },
    )
}

/// The witness records of the nodes a transaction verified (`walked`, in the walk's order,
/// the first being node `first − 1`), for a session to keep.
fn node_records(walked: Span<NodeClaims>, first: u32) -> Span<NodeRecord> {
    let mut records = array![];
    let mut node = first;
    for left in walked {
        node -= 1;
        let (mut own, mut tables) = (array![], array![]);
        left.own_part().serialize(ref own);
        left.tables_part().serialize(ref tables);
        records.append(NodeRecord { node, own: own.span(), tables: tables.span() });
    }
    records.span()
}

/// Every node's `NodeClaims`, last node first: those of earlier transactions (`earlier`, their
/// weights' parts), then `walked`, this one's.
fn records_of(earlier: Walked, walked: Span<NodeClaims>) -> Span<NodeClaims> {
    let mut records = array![];
    let mut earlier = match earlier {
        Walked::Kept(felts) => felts,
        Walked::Stored(key) => read_span(key),
    };
    while !earlier.is_empty() {
        records.append(Serde::<NodeClaims>::deserialize(ref earlier).unwrap());
    }
    records.append_span(walked);
    records.span()
}

/// The keys of the graph's declarations (name order), each of which a verified range walk
/// must have certified (docs/registry.md, "Certified declarations").
fn declared_keys(graph: @GraphCalldata) -> Span<felt252> {
    let mut keys = array![];
    for w in *graph.declared {
        let t = graph.committed.get(*w.name);
        keys.append(declaration_key(t.commitment.unwrap(), t.shape, *w.bits, *w.col_max));
    }
    keys.span()
}

/// The graph's binding as the main contract checks it against the registry: per committed
/// weight (name order) its index and the entry its commitment must be.
fn binding_check(graph: @GraphCalldata) -> Option<BindingCheck> {
    let b = match graph.statement.binding {
        Some(b) => b,
        None => { return None; },
    };
    let mut weights = array![];
    for entry in b.weights.span() {
        let t = graph.committed.get(*entry.name);
        let c = t.commitment.unwrap();
        weights.append((*entry.value, commitment_entry(c.hash, c.root, t.shape)));
    }
    Some(BindingCheck { model_id: *b.model_id, config_hash: *b.config_hash, weights })
}

#[starknet::contract]
pub mod CairnGraphVerifier {
    use crate::graph::records::{Records, SessionRecords, WitnessPolys, witness_claims};
    use crate::layers::Classes;
    use crate::pcs::proof::Claim;
    use super::{GraphStep, Walked};

    #[storage]
    struct Storage {}

    #[abi(embed_v0)]
    impl CairnGraphVerifierImpl of super::ICairnGraphVerifier<ContractState> {
        fn start_graph(
            self: @ContractState, proof: Span<felt252>, whole: bool, classes: Classes,
        ) -> GraphStep {
            super::start_graph(proof, whole, classes)
        }

        fn continue_graph(
            self: @ContractState,
            statement: Span<felt252>,
            checks: Span<felt252>,
            walk: Span<felt252>,
            parts: Span<felt252>,
            walked: Walked,
            classes: Classes,
        ) -> GraphStep {
            super::continue_graph(statement, checks, walk, parts, walked, classes)
        }

        fn witness_claims(
            self: @ContractState,
            polys: WitnessPolys,
            from: u32,
            count: u32,
            records: SessionRecords,
        ) -> Span<Span<Claim>> {
            witness_claims(@polys, Records::Session(records), from, count)
        }
    }
}
