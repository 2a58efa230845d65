//! PCS verifier (mirror of prover/pcs/verifier.py, function for function, with the same check
//! names). `verify_batch` is split in two, as in Python: `verify_front` replays the transcript
//! up to the queries and returns a `QueryPhase`; `verify_groups` checks fold groups in order,
//! each from its own openings and the previous group's values, so a contract session can stop
//! between groups and resume in the next transaction (docs/cairo-verifier.md, "Sessions").
//!
//! Counts (rounds, merged values, layers) and the statement's shape are checked by the
//! calldata reader, in the order Python's `_check_statement` and `_check_shape` check them.

use core::poseidon::poseidon_hash_span;
use crate::channels::base::Channel;
use crate::channels::poseidon252::pack_qm31s;
use crate::fields::m31::{M31, M31Trait};
use crate::fields::qm31::{QM31, QM31Trait, UnreducedQM31Trait};
use crate::blake2s::{Blake2sHash, blake2s};
use crate::merkle::hashers::{
    Blake2sMerkleHasher, HASH_POSEIDON, Poseidon252MerkleHasher, blake2s_root,
};
use crate::merkle::proof::check_indices;
use crate::merkle::verifier::verify_path;
use crate::mle::eq_eval;
use crate::sumcheck::{evaluate_round, verify_sumcheck};
use super::code::{batch_inverse, fold_base_pair, fold_pair};
use super::domain::{BlockTwiddlesTrait, double_x};
use super::params::{PcsParams, poly_log_leaf};
use super::proof::{GroupOpenings, OpeningFront, PolyStatement, TreeOpening};
use super::queries::{
    BatchLayout, BatchLayoutTrait, leaf_rows, pow2, shift_distinct, sorted_distinct,
};
use super::transcript::{
    PcsChannel, QuerySeed, absorb_statement, aligned_point, merge_weights, merged_claim, merged_eq,
    seeded_queries,
};

/// Every round polynomial here has degree 2 and is sent as [c0, c2].
pub const ROUND_SENT: u32 = 2;

/// Everything the query phase needs once the transcript is replayed: the trees' hash, the
/// public sizes and roots, the challenges, the final value, where the queries come from (the
/// channel's digest after the nonce: the queries are its first draws), the next group to check,
/// how many of its trees are checked, a Poseidon hash of the values that group's layer must
/// hold at the queries (0 before the first group), and, when a session stopped inside the
/// group, what its checked trees add to each block's value (Python `fold_trees`). A contract
/// session stores the hash of its serialization between transactions.
#[derive(Drop, Serde, PartialEq, Debug)]
pub struct QueryPhase {
    pub hash: felt252,
    pub poly_vars: Span<u32>,
    pub poly_roots: Span<u256>,
    pub layer_roots: Span<u256>,
    pub betas: Span<QM31>,
    pub rhos: Span<QM31>,
    pub final_value: QM31,
    pub query_seed: QuerySeed,
    pub next_group: u32,
    pub next_tree: u32,
    pub pending: felt252,
    pub partial: Span<QM31>,
}

#[generate_trait]
pub impl QueryPhaseImpl of QueryPhaseTrait {
    fn layout(self: @QueryPhase, params: @PcsParams) -> BatchLayout {
        BatchLayoutTrait::new(*self.poly_vars, *params.log_arity)
    }

    /// Whether every group has been checked: the opening is verified.
    fn is_complete(self: @QueryPhase, params: @PcsParams) -> bool {
        *self.next_group == self.layout(params).groups.len()
    }
}

/// Python `verify_batch`, for the given groups: `verify_front`, then `verify_groups`. The
/// opening is verified when the returned phase `is_complete` (all groups were given).
pub fn verify_batch<C, +Drop<C>, +Channel<C>, +PcsChannel<C>>(
    params: @PcsParams,
    statement: Span<PolyStatement>,
    front: OpeningFront,
    groups: Span<GroupOpenings>,
    ref channel: C,
) -> QueryPhase {
    let mut phase = verify_front(params, statement, front, ref channel);
    verify_groups(params, ref phase, groups);
    phase
}

/// Python `verify_batch` up to the queries, for a statement and front that do not come from the
/// PCS calldata reader (a walk's claims on its committed weights, its witness opening):
/// `check_statement`, `check_shape`, then `verify_front`; the groups follow (`verify_groups`).
pub fn verify_checked_front<C, +Drop<C>, +Channel<C>, +PcsChannel<C>>(
    params: @PcsParams, statement: Span<PolyStatement>, front: OpeningFront, ref channel: C,
) -> QueryPhase {
    check_statement(params, statement);
    check_shape(params, statement, @front);
    verify_front(params, statement, front, ref channel)
}

/// Python `verify_batch` up to the queries: statement, merge, β, folding sum-check, final
/// value, grinding.
pub fn verify_front<C, +Drop<C>, +Channel<C>, +PcsChannel<C>>(
    params: @PcsParams,
    statement: Span<PolyStatement>,
    front: OpeningFront,
    ref channel: C,
) -> QueryPhase {
    let mut poly_vars = array![];
    let mut poly_roots = array![];
    for poly in statement {
        poly_vars.append(*poly.n_vars);
        poly_roots.append(*poly.root);
    }
    let layout = BatchLayoutTrait::new(poly_vars.span(), *params.log_arity);
    let aligned = aligned_point(statement);
    absorb_statement(ref channel, params, statement);
    let (point, values) = verify_merge(statement, front, layout.n_vars, aligned, ref channel);
    let betas = channel.draw_secure_felts(statement.len()).span();
    let (rhos, claim, scale) = replay_fold(
        front, *params.hash, @layout, point, values, betas, ref channel,
    );
    channel.mix_felts(array![front.final_value].span());
    assert(claim == scale * front.final_value, 'pcs.claim');
    assert(channel.verify_pow_nonce(*params.pow_bits, front.pow_nonce), 'pcs.pow');
    channel.mix_u64(front.pow_nonce);
    QueryPhase {
        hash: *params.hash,
        poly_vars: poly_vars.span(),
        poly_roots: poly_roots.span(),
        layer_roots: front.layer_roots,
        betas,
        rhos,
        final_value: front.final_value,
        query_seed: PcsChannel::query_seed(@channel),
        next_group: 0,
        next_tree: 0,
        pending: 0,
        partial: array![].span(),
    }
}

const STARK_PRIME: u256 = 0x800000000000011000000000000000000000000000000000000000000000001;

/// Python `_check_statement` for a statement that does not come from the PCS calldata reader
/// (a walk's claims on its committed weights, of `params`' hash): every root a digest
/// (`merkle.digest`), every size openable (`pcs.size`), claims present and of the size
/// (`pcs.claim_shape`).
pub fn check_statement(params: @PcsParams, statement: Span<PolyStatement>) {
    assert(!statement.is_empty(), 'pcs.statement');
    for poly in statement {
        assert(*params.hash != HASH_POSEIDON || *poly.root < STARK_PRIME, 'merkle.digest');
        assert(*poly.n_vars <= *params.max_n_vars, 'pcs.size');
        assert(!(*poly.claims).is_empty(), 'pcs.claim_shape');
        for claim in *poly.claims {
            assert((*claim.point).len() == *poly.n_vars, 'pcs.claim_shape');
        }
    }
}

/// Python `_check_shape` for a front that does not come from the PCS calldata reader: the
/// counts of rounds, merged values and layer roots, and the layer roots being digests.
pub fn check_shape(params: @PcsParams, statement: Span<PolyStatement>, front: @OpeningFront) {
    let layout = BatchLayoutTrait::of_statement(statement, *params.log_arity);
    let n = layout.n_vars;
    let aligned = aligned_point(statement).is_some();
    check_rounds(*front.merge, if aligned {
        0
    } else {
        n
    });
    let merged = if aligned {
        0
    } else {
        statement.len()
    };
    assert((*front.merged_values).len() == merged, 'pcs.merge_count');
    check_rounds(*front.fold, n);
    assert((*front.layer_roots).len() == layout.groups.len() - 1, 'pcs.layer_count');
    for root in *front.layer_roots {
        assert(*params.hash != HASH_POSEIDON || *root < STARK_PRIME, 'merkle.digest');
    }
}

fn check_rounds(rounds: Span<Span<QM31>>, count: u32) {
    assert(rounds.len() == count, 'pcs.round_count');
    for sent in rounds {
        assert((*sent).len() == ROUND_SENT, 'pcs.round_degree');
    }
}

/// The common point r and the values f_j~(r_tail) the folding sum-check starts from.
fn verify_merge<C, +Drop<C>, +Channel<C>>(
    statement: Span<PolyStatement>,
    front: OpeningFront,
    n_vars: u32,
    aligned: Option<Span<QM31>>,
    ref channel: C,
) -> (Span<QM31>, Span<QM31>) {
    if let Some(point) = aligned {
        let mut values = array![];
        for poly in statement {
            values.append(*(*poly.claims)[0].value);
        }
        return (point, values.span());
    }
    let weights = merge_weights(channel.draw_secure_felt(), statement);
    let claim = merged_claim(statement, weights, n_vars);
    let (point, final_claim) = verify_sumcheck(claim, front.merge, n_vars, ROUND_SENT, ref channel);
    channel.mix_felts(front.merged_values);
    let mut expected = QM31Trait::zero();
    let mut j = 0;
    for poly in statement {
        let tail = point.slice(n_vars - *poly.n_vars, *poly.n_vars);
        expected = expected + merged_eq(*poly.claims, *weights[j], tail) * *front.merged_values[j];
        j += 1;
    }
    assert(final_claim == expected, 'pcs.merge');
    (point, front.merged_values)
}

/// Replays the folding rounds; returns the challenges ρ, the claim on E·c, and E.
fn replay_fold<C, +Drop<C>, +Channel<C>, +PcsChannel<C>>(
    front: OpeningFront,
    hash: felt252,
    layout: @BatchLayout,
    point: Span<QM31>,
    values: Span<QM31>,
    betas: Span<QM31>,
    ref channel: C,
) -> (Span<QM31>, QM31, QM31) {
    let mut claim = QM31Trait::zero();
    for j in layout.entering(0) {
        claim = claim + *betas[*j] * *values[*j];
    }
    let mut scale = QM31Trait::one();
    let mut rhos = array![];
    let mut roots = front.layer_roots;
    // The layers are committed at the starts s > 0 of the groups after the first.
    let mut starts = (*layout.groups).slice(1, (*layout.groups).len() - 1);
    let mut t = 1;
    for sent in front.fold {
        channel.mix_felts(*sent);
        let rho = channel.draw_secure_felt();
        rhos.append(rho);
        claim = evaluate_round(claim, *sent, rho);
        scale = scale * eq_eval(array![*point[t - 1]].span(), array![rho].span());
        for j in layout.entering(t) {
            claim = claim + scale * *betas[*j] * *values[*j];
        }
        if let Some(start) = starts.get(0) {
            let (s, _) = *start.unbox();
            if s == t {
                starts.pop_front().unwrap();
                PcsChannel::mix_root(ref channel, hash, *roots.pop_front().unwrap());
            }
        }
        t += 1;
    }
    (rhos.span(), claim, scale)
}

/// Checks the next `groups.len()` fold groups, in order, with their openings.
pub fn verify_groups(params: @PcsParams, ref phase: QueryPhase, groups: Span<GroupOpenings>) {
    let layout = phase.layout(params);
    let log_size = layout.n_vars + *params.log_blowup;
    let queries = sorted_distinct(seeded_queries(phase.query_seed, *params.n_queries, log_size));
    for openings in groups {
        verify_group(params, ref phase, @layout, queries, *openings);
    }
}

/// An opened polynomial of the current group: index, the level it enters at, its leaves' size
/// and values, and per block of the group the row of the leaf holding it.
#[derive(Copy, Drop)]
struct OpenedPoly {
    j: u32,
    level: u32,
    log_leaf: u32,
    values: Span<Span<felt252>>,
    rows: Span<u32>,
}

/// Trees of the current group (s, e], from its tree `next_tree` on (Python `fold_trees`): open
/// them (the layer committed at s, if it is among them, then the polynomials entering in the
/// group), check the layer holds the previous group's folds at every query (`pcs.fold`), and
/// add what they fold to at e to each block's partial value. After the group's last tree, hand
/// the values on, or compare them with the final value when e = n (`pcs.final_layer`).
///
/// Python compares each query's value with its layer entry; here both lists, taken at the
/// distinct positions q >> s in increasing order, are compared through their Poseidon hash,
/// which is what lets the comparison cross a transaction (the session stores `pending`, and
/// `partial` when it stops inside a group).
fn verify_group(
    params: @PcsParams,
    ref phase: QueryPhase,
    layout: @BatchLayout,
    queries: Span<u32>,
    openings: GroupOpenings,
) {
    let g = phase.next_group;
    let (s, e) = *(*layout.groups)[g];
    let n = *layout.n_vars;
    let log_blowup = *params.log_blowup;
    // Query q folds through the block q >> e; the layer at s has one leaf per block.
    let blocks = shift_distinct(queries, e);
    let mut layer: Span<Span<QM31>> = array![].span();
    if let Some(opening) = openings.layer {
        open_tree(phase.hash, *phase.layer_roots[g - 1], n + log_blowup - e, blocks, opening);
        layer = qm31_rows(opening.values);
    }
    // Tree 0 of a later group is its layer; the polynomials follow.
    let polys_done = if g > 0 && phase.next_tree > 0 {
        phase.next_tree - 1
    } else {
        phase.next_tree
    };
    let mut opened = array![];
    let mut polys = openings.polys;
    for j in layout.group_polys(g).slice(polys_done, openings.polys.len()) {
        let opening = *polys.pop_front().unwrap();
        let n_j = *phase.poly_vars[*j];
        let log_leaf = poly_log_leaf(n_j, params);
        let shift = layout.poly_leaf_shift(*j, params);
        let leaf_ids = shift_distinct(queries, shift);
        open_tree(phase.hash, *phase.poly_roots[*j], n_j + log_blowup - log_leaf, leaf_ids, opening);
        let rows = leaf_rows(leaf_ids, blocks, shift - e);
        let level = *(*layout.levels)[*j];
        opened.append(OpenedPoly { j: *j, level, log_leaf, values: opening.values, rows });
    }
    if !layer.is_empty() {
        let positions = shift_distinct(queries, s);
        let rows = leaf_rows(blocks, positions, e - s);
        let mut at_queries = array![];
        let mut i = 0;
        for position in positions {
            let offset = *position % pow2(e - s);
            at_queries.append(*(*layer[*rows[i]])[offset]);
            i += 1;
        }
        assert(hash_qm31s(at_queries.span()) == phase.pending, 'pcs.fold');
    }
    let mut outputs = fold_blocks(@phase, s, e, n + log_blowup, blocks, layer, opened.span());
    if !phase.partial.is_empty() {
        let mut sums = array![];
        let mut i = 0;
        for value in outputs {
            sums.append(*phase.partial[i] + *value);
            i += 1;
        }
        outputs = sums.span();
    }
    phase.next_tree += openings.polys.len() + if layer.is_empty() {
        0
    } else {
        1
    };
    if phase.next_tree < layout.group_trees(g) {
        phase.partial = outputs;
        return;
    }
    if e == n {
        for value in outputs {
            assert(*value == phase.final_value, 'pcs.final_layer');
        }
    } else {
        phase.pending = hash_qm31s(outputs);
    }
    phase.partial = array![].span();
    phase.next_tree = 0;
    phase.next_group = g + 1;
}

/// Python `_open`: one leaf per distinct index (`pcs.query_count` otherwise), then the Merkle
/// checks in a tree of `hash`. A Poseidon leaf's digest is the hash of its calldata words,
/// which the reader checked are `pack_m31s` of its values (the Poseidon252 leaf hash); a
/// Blake2s leaf's is the Blake2s of its values as u32 words (docs/merkle.md).
fn open_tree(hash: felt252, root: u256, depth: u32, leaf_ids: Span<u32>, opening: TreeOpening) {
    assert(opening.words.len() == leaf_ids.len(), 'pcs.query_count');
    check_indices(leaf_ids, depth);
    if hash == HASH_POSEIDON {
        let mut digests = array![];
        for words in opening.words {
            digests.append(poseidon_hash_span(*words));
        }
        let root: felt252 = root.try_into().unwrap();
        verify_path::<
            felt252, Poseidon252MerkleHasher,
        >(root, depth, leaf_ids, digests.span(), opening.siblings);
    } else {
        let mut digests: Array<Blake2sHash> = array![];
        for values in opening.values {
            let mut words = array![];
            for value in *values {
                words.append((*value).try_into().unwrap());
            }
            digests.append(blake2s(words.span()));
        }
        verify_path::<
            Blake2sHash, Blake2sMerkleHasher,
        >(blake2s_root(root), depth, leaf_ids, digests.span(), opening.siblings);
    }
}

/// Folds every block of group (s, e] from level s to e (the domain at s has log size
/// `log_size`), adding β_j times the block of each polynomial entering on the way; returns one
/// value per block.
fn fold_blocks(
    phase: @QueryPhase,
    s: u32,
    e: u32,
    log_size: u32,
    blocks: Span<u32>,
    layer: Span<Span<QM31>>,
    opened: Span<OpenedPoly>,
) -> Span<QM31> {
    // 2x for every fold of every block, in the order the folds use them: the first fold's
    // twiddles of the block, then π of every other one per level; inverted all at once.
    let mut doubles = array![];
    if e > s {
        let first_fold = BlockTwiddlesTrait::new(log_size - s, e - s - 1);
        for block in blocks {
            let mut twiddles = first_fold.at(*block);
            loop {
                let mut next = array![];
                let mut even = true;
                for x in twiddles {
                    doubles.append(*x + *x);
                    if even {
                        next.append(double_x(*x));
                    }
                    even = !even;
                }
                if twiddles.len() == 1 {
                    break;
                }
                twiddles = next.span();
            }
        }
    }
    let mut inverses = batch_inverse(doubles.span());
    // The first group folds its polynomials' base values once, straight into QM31.
    let mut first_fold = array![];
    if s == 0 && e > 0 {
        let rho = *(*phase.rhos)[0];
        let mut i = 0;
        for poly in opened {
            if *poly.level == 0 {
                let beta = *(*phase.betas)[*poly.j];
                first_fold.append((i, beta, beta * rho));
            }
            i += 1;
        }
    }
    let first_fold = first_fold.span();
    let mut outputs = array![];
    let mut b = 0;
    for block in blocks {
        let mut t = s + 1;
        // Empty until a tree adds to it when the group's layer is not among the trees.
        let mut word = if !layer.is_empty() {
            *layer[b]
        } else if e == 0 {
            start_word(phase, opened, b)
        } else if !first_fold.is_empty() {
            t = 2;
            let folded = fold_leaves(opened, first_fold, b, ref inverses);
            add_entering(folded, phase, opened, b, *block, e, 1)
        } else {
            array![].span()
        };
        while t <= e {
            let rho = *(*phase.rhos)[t - 1];
            let mut folded = array![];
            if word.is_empty() {
                let skipped = pow2(e - t);
                inverses = inverses.slice(skipped, inverses.len() - skipped);
            }
            let mut pairs = word;
            while let Some(pair) = pairs.multi_pop_front::<2>() {
                let [lo, hi] = pair.unbox();
                folded.append(fold_pair(lo, hi, *inverses.pop_front().unwrap(), rho));
            }
            word = add_entering(folded.span(), phase, opened, b, *block, e, t);
            t += 1;
        }
        outputs.append(*word[0]);
        b += 1;
    }
    outputs.span()
}

/// The first fold of block b of Σ_(t_j = 0) β_j·(polynomial j's leaf) (`fold_base_pair` per
/// polynomial, one reduction per coordinate); `scales` holds (index in `opened`, β_j, β_j·ρ_1).
fn fold_leaves(
    opened: Span<OpenedPoly>, scales: Span<(u32, QM31, QM31)>, b: u32, ref inverses: Span<M31>,
) -> Span<QM31> {
    let mut leaves = array![];
    for (i, _, _) in scales {
        let poly = *opened[*i];
        leaves.append(*poly.values[*poly.rows[b]]);
    }
    let leaves = leaves.span();
    let mut out = array![];
    for pair in 0..(*leaves[0]).len() / 2 {
        let inv_2x = *inverses.pop_front().unwrap();
        let mut acc = UnreducedQM31Trait::zero();
        let mut k = 0;
        for (_, beta, beta_r) in scales {
            let leaf = *leaves[k];
            acc = acc + fold_base_pair(*leaf[2 * pair], *leaf[2 * pair + 1], inv_2x, *beta, *beta_r);
            k += 1;
        }
        out.append(acc.reduce());
    }
    out.span()
}

/// word + β_j times the block of each polynomial entering at level t (`add_block`).
fn add_entering(
    word: Span<QM31>,
    phase: @QueryPhase,
    opened: Span<OpenedPoly>,
    b: u32,
    block: u32,
    e: u32,
    t: u32,
) -> Span<QM31> {
    let mut word = word;
    for poly in opened {
        if *poly.level == t {
            word = add_block(word, phase, *poly, b, block, e);
        }
    }
    word
}

/// Σ_(t_j = 0) β_j times block b of polynomial j, for a group without folds (n = 0): a whole
/// leaf of one value.
fn start_word(phase: @QueryPhase, opened: Span<OpenedPoly>, b: u32) -> Span<QM31> {
    let mut word: Span<QM31> = array![].span();
    for poly in opened {
        if *poly.level == 0 {
            let leaf = *(*poly.values)[*(*poly.rows)[b]];
            word = add_scaled(word, *(*phase.betas)[*poly.j], leaf);
        }
    }
    word
}

/// word + β_j times the values of polynomial j that fold into block `block` at level e: at its
/// level t_j they are the 2^(e − t_j) values from position block·2^(e − t_j).
fn add_block(
    word: Span<QM31>, phase: @QueryPhase, poly: OpenedPoly, b: u32, block: u32, e: u32,
) -> Span<QM31> {
    let size = pow2(e - poly.level);
    let offset = (block * size) % pow2(poly.log_leaf);
    let leaf = *poly.values[*poly.rows[b]];
    add_scaled(word, *(*phase.betas)[poly.j], leaf.slice(offset, size))
}

/// word + β·values (word empty: β·values), values canonical M31 felts.
fn add_scaled(word: Span<QM31>, beta: QM31, values: Span<felt252>) -> Span<QM31> {
    let mut out = array![];
    let mut i = 0;
    for value in values {
        let scaled = beta.scale(base(*value));
        out.append(if word.is_empty() {
            scaled
        } else {
            *word[i] + scaled
        });
        i += 1;
    }
    out.span()
}

/// A layer leaf's M31 values as QM31s, coordinates a, b, c, d in order.
fn qm31_rows(rows: Span<Span<felt252>>) -> Span<Span<QM31>> {
    let mut out = array![];
    for row in rows {
        let mut values = *row;
        let mut qm31s = array![];
        while let Some(coords) = values.multi_pop_front::<4>() {
            let [a, b, c, d] = coords.unbox();
            qm31s.append(QM31 { a: base(a), b: base(b), c: base(c), d: base(d) });
        }
        out.append(qm31s.span());
    }
    out.span()
}

/// A value the reader checked is canonical.
fn base(value: felt252) -> M31 {
    M31Trait::new(value.try_into().unwrap())
}

/// Poseidon hash of QM31 values packed two per felt as `mix_felts` packs them.
pub fn hash_qm31s(values: Span<QM31>) -> felt252 {
    let mut felts = array![];
    pack_qm31s(ref felts, values);
    poseidon_hash_span(felts.span())
}
