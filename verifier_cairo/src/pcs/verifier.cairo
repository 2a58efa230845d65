//! PCS verifier (mirror of prover/pcs/verifier.py, function for function, with the same check
//! names). `verify_batch` is split in two, as in Python: `verify_front` replays the transcript
//! up to the queries and returns a `QueryPhase`; `verify_groups` checks fold groups in order,
//! each from its own openings and the previous group's values, so a contract session can stop
//! between groups and resume in the next transaction (docs/cairo-verifier.md, "Sessions").
//!
//! The statement's shape and the counts (rounds, merged values, layers) are checked in the
//! front's stages (`front.cairo`), in Python's order; the kind-2 calldata reader checks them
//! too, as the felts come.

use core::poseidon::poseidon_hash_span;
use crate::channels::base::Channel;
use crate::channels::poseidon252::pack_qm31s;
use crate::fields::qm31::QM31;
use crate::blake2s::{Blake2sHash, blake2s};
use crate::bounded_int::{residue_double, residue_double_x};
use crate::merkle::hashers::{
    Blake2sMerkleHasher, HASH_POSEIDON, Poseidon252MerkleHasher, blake2s_root,
};
use crate::merkle::proof::check_indices;
use crate::merkle::verifier::verify_path;
use crate::mle::log2_padded;
use super::code::{
    CANONICAL_BITS, Coords, FOLD_GROWTH, FoldOffsets, MAX_BITS, batch_inverse, coords, fold_base_pair,
    fold_offsets, fold_pair, from_coords, reduce_word,
};
use super::domain::BlockTwiddlesTrait;
use super::params::{PcsParams, poly_log_leaf};
use super::proof::{GroupOpenings, OpeningFront, PolyStatement, TreeOpening};
use super::queries::{
    BatchLayout, BatchLayoutTrait, leaf_rows, pow2, shift_distinct, sorted_distinct,
};
use super::front::{FrontReplayTrait, QueryPhase, QueryPhaseTrait};
use super::transcript::{PcsChannel, seeded_queries};

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

/// Python `verify_batch` up to the queries (`verify_front`): the front's stages at once
/// (`front.cairo`), the statement's and the counts' checks among them.
pub fn verify_front<C, +Drop<C>, +Channel<C>, +PcsChannel<C>>(
    params: @PcsParams, statement: Span<PolyStatement>, front: OpeningFront, ref channel: C,
) -> QueryPhase {
    let (mut poly_vars, mut poly_roots, mut claims) = (array![], array![], array![]);
    for poly in statement {
        poly_vars.append(*poly.n_vars);
        poly_roots.append(*poly.root);
        claims.append(*poly.claims);
    }
    let mut replay = FrontReplayTrait::start(
        params, poly_vars.span(), poly_roots.span(), front, channel,
    );
    replay.absorb(params, claims.span());
    replay.reduce(claims.span());
    let phase = replay.finish(params);
    channel = replay.channel;
    phase
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
    let mut layer: Span<Span<felt252>> = array![].span();
    if let Some(opening) = openings.layer {
        open_tree(phase.hash, *phase.layer_roots[g - 1], n + log_blowup - e, blocks, opening);
        layer = opening.values;
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
            let offset = 4 * (*position % pow2(e - s));
            let value = (*layer[*rows[i]]).slice(offset, 4);
            at_queries.append(from_coords([*value[0], *value[1], *value[2], *value[3]]));
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
            digests.append(blake2s(leaf_words(*values)));
        }
        verify_path::<
            Blake2sHash, Blake2sMerkleHasher,
        >(blake2s_root(root), depth, leaf_ids, digests.span(), opening.siblings);
    }
}

/// Folds every block of group (s, e] from level s to e (the domain at s has log size
/// `log_size`), adding β_j times the block of each polynomial entering on the way; returns one
/// value per block. Words are flat `Coords`, four felts a value, from the leaves to the outputs,
/// and stay unreduced while their bound allows another fold (`code.cairo`): `plan` says, per
/// level, whether a block's word is reduced before its fold and with which offsets.
fn fold_blocks(
    phase: @QueryPhase,
    s: u32,
    e: u32,
    log_size: u32,
    blocks: Span<u32>,
    layer: Span<Span<felt252>>,
    opened: Span<OpenedPoly>,
) -> Span<QM31> {
    // 2x for every fold of every block, in the order the folds use them: the first fold's
    // twiddles of the block, then π of every other one per level; inverted all at once and
    // popped from the back (`batch_inverse` returns them last first).
    let mut doubles = array![];
    if e > s {
        let first_fold = BlockTwiddlesTrait::new(log_size - s, e - s - 1);
        for block in blocks {
            let mut twiddles = first_fold.at(*block);
            let mut twiddles_next = array![];
            while let Some(pair) = twiddles.multi_pop_front::<2>() {
                let [even, odd] = pair.unbox();
                doubles.append(residue_double(even));
                doubles.append(residue_double(odd));
                twiddles_next.append(residue_double_x(even));
                if twiddles.is_empty() {
                    twiddles = twiddles_next.span();
                    twiddles_next = array![];
                }
            }
            // The last level's one twiddle.
            doubles.append(residue_double(*twiddles[0]));
        }
    }
    let mut inverses = batch_inverse(doubles.span());
    let mut rhos = array![];
    for t in s..e {
        rhos.append(coords(*(*phase.rhos)[t]));
    }
    let rhos = rhos.span();
    // The first group folds its polynomials' base values once, straight into QM31.
    let mut first_fold = array![];
    if s == 0 && e > 0 {
        let rho = *(*phase.rhos)[0];
        let mut i = 0;
        for poly in opened {
            if *poly.level == 0 {
                let beta = *(*phase.betas)[*poly.j];
                first_fold.append((i, coords(beta), coords(beta * rho)));
            }
            i += 1;
        }
    }
    let first_fold = first_fold.span();
    // Per level t of the group, the polynomials entering there.
    let mut entering = array![];
    for t in (s + 1)..(e + 1) {
        let mut at_t = array![];
        for poly in opened {
            if *poly.level == t {
                at_t.append(*poly);
            }
        }
        entering.append(at_t.span());
    }
    let entering = entering.span();
    let (first, plan) = fold_plan(s, e, !layer.is_empty(), first_fold.len(), entering);
    let mut outputs = array![];
    let mut b = 0;
    for block in blocks {
        // Empty until a tree adds to it when the group's layer is not among the trees.
        let mut word = if !layer.is_empty() {
            *layer[b]
        } else if e == 0 {
            start_word(phase, opened, b)
        } else if !first_fold.is_empty() {
            let folded = fold_leaves(opened, first_fold, b, ref inverses);
            add_entering(folded, phase, *entering[0], b, *block, e)
        } else {
            array![].span()
        };
        let mut t = first;
        for step in plan {
            let r = *rhos[t - s - 1];
            if word.is_empty() {
                let skipped = pow2(e - t);
                inverses = inverses.slice(0, inverses.len() - skipped);
            } else if let Some((reduce, offsets)) = step {
                if *reduce {
                    word = reduce_word(word);
                }
                word = fold_word(word, ref inverses, r, offsets);
            }
            word = add_entering(word, phase, *entering[t - s - 1], b, *block, e);
            t += 1;
        }
        let value = reduce_word(word);
        outputs.append(from_coords([*value[0], *value[1], *value[2], *value[3]]));
        b += 1;
    }
    outputs.span()
}

/// One fold of every pair of a word, two pairs a loop step (a step costs a range check), the
/// inverses popped from the back.
fn fold_word(
    word: Span<felt252>, ref inverses: Span<felt252>, r: Coords, offsets: @FoldOffsets,
) -> Span<felt252> {
    let mut folded = array![];
    let mut pairs = word;
    while let Some(two) = pairs.multi_pop_front::<16>() {
        let [l0, l1, l2, l3, h0, h1, h2, h3, m0, m1, m2, m3, k0, k1, k2, k3] = two.unbox();
        let inv_first = *inverses.pop_back().unwrap();
        let inv_second = *inverses.pop_back().unwrap();
        let [c0, c1, c2, c3] = fold_pair([l0, l1, l2, l3], [h0, h1, h2, h3], inv_first, r, offsets);
        let [d0, d1, d2, d3] = fold_pair([m0, m1, m2, m3], [k0, k1, k2, k3], inv_second, r, offsets);
        folded.append(c0);
        folded.append(c1);
        folded.append(c2);
        folded.append(c3);
        folded.append(d0);
        folded.append(d1);
        folded.append(d2);
        folded.append(d3);
    }
    if let Some(pair) = pairs.multi_pop_front::<8>() {
        let [l0, l1, l2, l3, h0, h1, h2, h3] = pair.unbox();
        let inv_2x = *inverses.pop_back().unwrap();
        let [c0, c1, c2, c3] = fold_pair([l0, l1, l2, l3], [h0, h1, h2, h3], inv_2x, r, offsets);
        folded.append(c0);
        folded.append(c1);
        folded.append(c2);
        folded.append(c3);
    }
    folded.span()
}

/// The fold of each level from the first to e, the same for every block: `None` where the word
/// is still empty (no tree of this call has reached it), else whether the word is reduced first
/// (when another fold would pass 2^251) and the offsets for its bound. Canonical leaves are
/// below 2^31, `fold_leaves`' sums below 2^(96 + ⌈log₂ k⌉) for k polynomials, a fold
/// adds `FOLD_GROWTH` bits and each polynomial entering a level one (β·v < 2^62). Returns the
/// first level folded here and the plan. The bound tracked after a level's entering polynomials
/// may pass 251 by their bits before the next reduction; the word itself stays below P there,
/// as a fold's outputs are below 2^(B+69), one bit under `FOLD_GROWTH`: below 2^250 + n·2^62
/// for n polynomials entering, far below P for any n a statement can have.
fn fold_plan(
    s: u32, e: u32, has_layer: bool, n_first: u32, entering: Span<Span<OpenedPoly>>,
) -> (u32, Span<Option<(bool, FoldOffsets)>>) {
    let mut t = s + 1;
    let mut bits = CANONICAL_BITS;
    let mut present = has_layer || e == 0;
    if !has_layer && n_first > 0 {
        // Level 1 is folded by `fold_leaves`, with the polynomials entering there added.
        t = 2;
        bits = 96 + log2_padded(n_first);
        bits = after_adding(bits, (*entering[0]).len());
        present = true;
    }
    let first = t;
    let mut plan = array![];
    while t <= e {
        if present {
            let reduce = bits + FOLD_GROWTH > MAX_BITS;
            if reduce {
                bits = CANONICAL_BITS;
            }
            plan.append(Some((reduce, fold_offsets(bits))));
            bits += FOLD_GROWTH;
        } else {
            plan.append(None);
        }
        let n_entering = (*entering[t - s - 1]).len();
        if n_entering > 0 {
            present = true;
            bits = after_adding(bits, n_entering);
        }
        t += 1;
    }
    (first, plan.span())
}

/// The bound of a word below 2^bits after n polynomials' β·v (< 2^62 each) are added.
fn after_adding(bits: u32, n: u32) -> u32 {
    if n == 0 {
        return bits;
    }
    core::cmp::max(bits, 62) + log2_padded(n + 1)
}

/// The first fold of block b of Σ_(t_j = 0) β_j·(polynomial j's leaf) (`fold_base_pair` per
/// polynomial), unreduced; `scales` holds (index in `opened`, β_j, β_j·ρ_1). Polynomial by
/// polynomial, each leaf's pairs popped in order and added to the running sums (no indexing
/// into leaves: an array read costs a range check). Every polynomial entering at level 0 has
/// the largest n_vars, so their leaves have one width, 2^min(a, n) (the reader's
/// `poly_log_leaf`), the first one's.
fn fold_leaves(
    opened: Span<OpenedPoly>,
    scales: Span<(u32, Coords, Coords)>,
    b: u32,
    ref inverses: Span<felt252>,
) -> Span<felt252> {
    let (first, _, _) = *scales[0];
    let first = *opened[first];
    let n_pairs = (*first.values[*first.rows[b]]).len() / 2;
    let mut block_inverses = array![];
    for _ in 0..n_pairs {
        block_inverses.append(*inverses.pop_back().unwrap());
    }
    let block_inverses = block_inverses.span();
    let mut sums: Span<felt252> = array![].span();
    for (i, beta, beta_r) in scales {
        let poly = *opened[*i];
        let mut leaf = *poly.values[*poly.rows[b]];
        let mut invs = block_inverses;
        let mut previous = sums;
        let mut next = array![];
        while let Some(pair) = leaf.multi_pop_front::<2>() {
            let [lo, hi] = pair.unbox();
            let f = fold_base_pair(lo, hi, *invs.pop_front().unwrap(), *beta, *beta_r);
            let [s0, s1, s2, s3] = match previous.multi_pop_front::<4>() {
                Some(sum) => sum.unbox(),
                None => [0, 0, 0, 0],
            };
            next.append(s0 + f.a);
            next.append(s1 + f.b);
            next.append(s2 + f.c);
            next.append(s3 + f.d);
        }
        sums = next.span();
    }
    sums
}

/// word + β_j times the block of each polynomial of `entering` (`add_block`).
fn add_entering(
    word: Span<felt252>,
    phase: @QueryPhase,
    entering: Span<OpenedPoly>,
    b: u32,
    block: u32,
    e: u32,
) -> Span<felt252> {
    let mut word = word;
    for poly in entering {
        word = add_block(word, phase, *poly, b, block, e);
    }
    word
}

/// Σ_(t_j = 0) β_j times block b of polynomial j, for a group without folds (n = 0): a whole
/// leaf of one value.
fn start_word(phase: @QueryPhase, opened: Span<OpenedPoly>, b: u32) -> Span<felt252> {
    let mut word: Span<felt252> = array![].span();
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
    word: Span<felt252>, phase: @QueryPhase, poly: OpenedPoly, b: u32, block: u32, e: u32,
) -> Span<felt252> {
    let size = pow2(e - poly.level);
    let offset = (block * size) % pow2(poly.log_leaf);
    let leaf = *poly.values[*poly.rows[b]];
    add_scaled(word, *(*phase.betas)[poly.j], leaf.slice(offset, size))
}

/// word + β·values (word empty: β·values), values canonical M31, unreduced: each coordinate
/// grows by less than 2^62.
fn add_scaled(word: Span<felt252>, beta: QM31, values: Span<felt252>) -> Span<felt252> {
    let [b0, b1, b2, b3] = coords(beta);
    let mut out = array![];
    let mut word = word;
    for value in values {
        let v = *value;
        let [w0, w1, w2, w3] = match word.multi_pop_front::<4>() {
            Some(w) => w.unbox(),
            None => [0, 0, 0, 0],
        };
        out.append(w0 + b0 * v);
        out.append(w1 + b1 * v);
        out.append(w2 + b2 * v);
        out.append(w3 + b3 * v);
    }
    out.span()
}

/// A Blake2s leaf's values as the u32 words its hash absorbs (canonical: below p).
fn leaf_words(values: Span<felt252>) -> Span<u32> {
    let mut words = array![];
    for value in values {
        words.append((*value).try_into().unwrap());
    }
    words.span()
}

/// Poseidon hash of QM31 values packed two per felt as `mix_felts` packs them.
pub fn hash_qm31s(values: Span<QM31>) -> felt252 {
    let mut felts = array![];
    pack_qm31s(ref felts, values);
    poseidon_hash_span(felts.span())
}
