//! embed (mirror of prover/layers/embed/model.py `check`, gather.py and verifier.py;
//! docs/layers/embed.md): y[i] = word[id_i] + position[i] for the public ids (the dims after
//! (s, V, B, P, d)), the word table stated in blocks word_0, …, word_{k−1} of B rows. One
//! degree-2 sum-check over the tables' rows; each table's selector at its end point comes from
//! the ids, O(s·n_t), never from y.

use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::{eq_eval, eq_table, half, hypercube_point, log2_padded};
use crate::pcs::proof::Claim;
use crate::ranges::{HALF, exceeds_half};
use crate::sameply::rounds;
use crate::sumcheck::verify_sumcheck;
use crate::walk::layer::{LayerClaims, single};
use crate::walk::proof::EmbedProof;
use crate::walk::statement::{OutputClaims, PublicStatement, expect_shapes, output_claim};
use crate::walk::tensor::{Bound, PublicTensorTrait, TensorsTrait, at_most, magnitude};

/// (s, V, B, P, d) before the ids.
const DIM_NAMES: u32 = 5;
const DEGREE: u32 = 2;
const POSITION: felt252 = 'position';

/// One gathered table, in proof order (the word blocks, then position): its weight name and
/// rows.
#[derive(Copy, Drop)]
struct Table {
    name: felt252,
    rows: u32,
}

/// 'word_' and j in decimal, as the short string Python's `block_name(j)` is.
fn block_name(j: u32) -> felt252 {
    let (mut digits, mut scale, mut rest): (felt252, felt252, u32) = (0, 1, j);
    loop {
        digits += scale * ('0' + (rest % 10).into());
        scale *= 256;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    'word_' * scale + digits
}

/// Block j holds rows [jB, min((j + 1)B, V)); position P rows.
#[inline(never)]
fn tables(dims: Span<u32>) -> Span<Table> {
    let (vocab, block_rows): (u64, u64) = ((*dims[1]).into(), (*dims[2]).into());
    let mut out = array![];
    let (mut start, mut j) = (0, 0);
    while start < vocab {
        let rows = if vocab - start < block_rows {
            vocab - start
        } else {
            block_rows
        };
        out.append(Table { name: block_name(j), rows: rows.try_into().unwrap() });
        start += block_rows;
        j += 1;
    }
    out.append(Table { name: POSITION, rows: *dims[3] });
    out.span()
}

/// The tables' indices (proof order: block j is j, position is k) in name order, as Python's
/// `sorted` and the statement list them: `position`, then the blocks by their decimal digits
/// as strings (word_0, word_1, word_10, …, word_2, …) — the digit trie walked depth first,
/// O(k), no sort.
fn name_order(blocks: u32) -> Span<u32> {
    let mut order = array![blocks, 0];
    for first in 1..10_u32 {
        with_suffixes(first, blocks, ref order);
    }
    order.span()
}

fn with_suffixes(j: u32, blocks: u32, ref order: Array<u32>) {
    if j >= blocks {
        return;
    }
    order.append(j);
    if j <= (blocks - 1) / 10 {
        for digit in 0..10_u32 {
            with_suffixes(j * 10 + digit, blocks, ref order);
        }
    }
}

/// dims (s, V, B, P, d) ≥ 1 then s ids, s ≤ P, B ≤ V (`statement.shape`), every id < V
/// (`embed.ids`); no inputs, y of s × d, the weights exactly the k blocks (rows of block j × d)
/// and position (P × d), the blocks all public or all committed (`statement.shape`); with
/// blocks and position public, |word[id_i, c]| + |position[i, c]| ≤ (p − 1)/2 for every i < s
/// and c (`statement.range`: then y = word[ids] + position over the integers).
pub fn check(st: @PublicStatement) {
    let dims = *st.dims;
    assert(dims.len() >= DIM_NAMES, 'statement.shape');
    let (s, vocab, block_rows, positions, d) = (*dims[0], *dims[1], *dims[2], *dims[3], *dims[4]);
    assert(s >= 1 && vocab >= 1 && block_rows >= 1 && positions >= 1 && d >= 1, 'statement.shape');
    assert(dims.len() - DIM_NAMES == s, 'statement.shape');
    assert(s <= positions && block_rows <= vocab, 'statement.shape');
    let ids = dims.slice(DIM_NAMES, s);
    for id in ids {
        assert(*id < vocab, 'embed.ids');
    }
    expect_shapes(*st.inputs, array![].span(), array![].span());
    expect_shapes(*st.outputs, array!['y'].span(), array![array![s, d].span()].span());
    // The statement holds every weight it names: more blocks than that is refused before
    // they are listed (as the shapes below would refuse them).
    let weights = *st.weights;
    let blocks = (vocab - 1) / block_rows + 1;
    assert(blocks < weights.names.len(), 'statement.shape');
    let tables = tables(dims);
    let (mut names, mut shapes) = (array![], array![]);
    for i in name_order(blocks) {
        let t = *tables[*i];
        names.append(t.name);
        shapes.append(array![t.rows, d].span());
    }
    expect_shapes(weights, names.span(), shapes.span());
    let (mut committed, mut declared) = (0, 0);
    for t in tables.slice(0, blocks) {
        let block = weights.get(*t.name);
        if block.commitment.is_some() {
            committed += 1;
            if block.known() {
                declared += 1;
            }
        }
    }
    let uniform = (committed == 0 || committed == blocks) && (declared == 0 || declared == blocks);
    assert(uniform, 'statement.shape');
    let position = weights.get(POSITION);
    if committed > 0 || position.commitment.is_some() {
        assert(!exceeds_half(declared_bound(st)), 'statement.range');
        return;
    }
    let mut i = 0;
    for id in ids {
        let word = weights.get(*tables[*id / block_rows].name).values;
        let (row, at) = ((*id % block_rows) * d, i * d);
        for c in 0..d {
            let sum = magnitude(*word[row + c]) + magnitude(*position.values[at + c]);
            assert(sum.into() <= HALF, 'statement.range');
        }
        i += 1;
    }
}

/// max_i (max|block of id_i| + max|position|) when the tables are committed and declared
/// (Python `_sum_bound` on their worst cases: a graph's tables are committed on chain); None
/// (skipped: mod p only) when one is committed undeclared.
fn declared_bound(st: @PublicStatement) -> Option<u128> {
    let dims = *st.dims;
    let (s, block_rows) = (*dims[0], *dims[2]);
    let (weights, tables) = (*st.weights, tables(dims));
    let position = weights.get(POSITION);
    if !position.known() || !weights.get(*tables[0].name).known() {
        return None;
    }
    let mut word = 0;
    for id in dims.slice(DIM_NAMES, s) {
        word = core::cmp::max(word, weights.get(*tables[*id / block_rows].name).max_magnitude());
    }
    Some(word + position.max_magnitude())
}

/// y's bound (Python `_output_bound`), after `check`.
pub fn output_bounds(st: @PublicStatement) -> Span<Option<Bound>> {
    array![at_most(declared_bound(st))].span()
}

/// The sum-check from the claim on y, the tables' values at its end point (absorbed), the
/// final evaluation from the selectors; one claim per table, in name order.
pub fn verify(
    st: @PublicStatement, proof: @EmbedProof, outputs: OutputClaims, ref channel: Poseidon252Channel,
) -> LayerClaims {
    let dims = *st.dims;
    let tables = tables(dims);
    let words = proof.word.span();
    assert(words.len() == tables.len() - 1, 'embed.value_count');
    let out = output_claim(outputs, 'y');
    let row_vars = log2_padded(*dims[0]);
    let r_i = out.point.slice(0, row_vars);
    let r_c = out.point.slice(row_vars, out.point.len() - row_vars);
    let mut n = 0;
    for t in tables {
        n = core::cmp::max(n, log2_padded(*t.rows));
    }
    let (point, final) = verify_sumcheck(
        out.value, rounds(proof.sumcheck.rounds), n, DEGREE, ref channel,
    );
    let mut values = array![];
    values.append_span(words);
    values.append(*proof.position);
    channel.mix_felts(values.span());
    let token_eq = eq_table(r_i);
    let half = half();
    let (mut total, mut index) = (QM31Trait::zero(), 0);
    let mut claims = array![];
    for t in tables {
        let n_t = log2_padded(*t.rows);
        let z = point.slice(n - n_t, n_t);
        let mut coeff = QM31Trait::one();
        for _ in n_t..n {
            coeff = coeff * half;
        }
        let value = *values[index];
        total = total + coeff * selector_at(dims, index, tables.len(), token_eq, z) * value;
        let mut at = array![];
        at.append_span(z);
        at.append_span(r_c);
        claims.append(single(*t.name, Claim { point: at.span(), value }));
        index += 1;
    }
    assert(final == total, 'embed.final_evaluation');
    let mut weights = array![];
    for i in name_order(tables.len() - 1) {
        weights.append(*claims[*i]);
    }
    LayerClaims { inputs: array![].span(), weights: weights.span(), witness: array![].span() }
}

/// sel̃_t(z) = Σ_{i<s reading table t} eq(r_i, i)·eq(z, row_t(i)): token i reads row
/// id_i − jB of block j = ⌊id_i/B⌋, and row i of position (the last table).
#[inline(never)]
fn selector_at(dims: Span<u32>, table: u32, count: u32, token_eq: Span<QM31>, z: Span<QM31>) -> QM31 {
    let block_rows = *dims[2];
    let mut total = QM31Trait::zero();
    let mut i = 0;
    for id in dims.slice(DIM_NAMES, *dims[0]) {
        let row = if table == count - 1 {
            Some(i)
        } else if *id / block_rows == table {
            Some(*id % block_rows)
        } else {
            None
        };
        if let Some(row) = row {
            total = total + *token_eq[i] * eq_eval(hypercube_point(row, z.len()), z);
        }
        i += 1;
    }
    total
}
