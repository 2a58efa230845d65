//! The range proof's declarations, lookups and witness layout, on claimed values and closed
//! forms (mirror of the verifier's half of prover/layers/range/relations.py).
//!
//! A summed weight (b ≤ 16) has |w| ≤ 2^(b−1) − 1: its key v = w + 2^(b−1) − 1 paired with the
//! committed a = |w| is looked up as v + β·a in the paired table of rows t + β·|t − 2^(b−1) + 1|,
//! t ∈ [0, 2^b − 1) (the top row a copy of row 0); its column sums are one claim on ã. Any other
//! weight has −2^(b−1) ≤ w < 2^(b−1): v = w + 2^(b−1) whole in the full table [0, 2^b) up to 16
//! bits, else as the committed limbs lo, hi in [0, 2^16) and [0, 2^(b−16)). Instances: the
//! columns (weights in index order; lo before hi), then the tables, paired by width, then full.

use crate::channels::base::Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::lookups::verifier::LeafClaim;
use crate::pcs::proof::Claim;
use crate::pcs::queries::pow2;
use crate::pcs::stack::{StackLayout, StackLayoutTrait, stack_claims};
use crate::softmax::relations::STACK_VARS;
use crate::softmax::structured::index_mle;
use crate::walk::layer::{ClaimsOn, single};
use crate::walk::tensor::tensor_vars;

/// The statement names the witness stacks range.0, range.1, …
pub const STACKS: felt252 = 'range';
pub const LIMB_BITS: u32 = 16;
pub const MAX_BITS: u32 = 30;
pub const MAX_WEIGHTS: u32 = 32;
pub const MAX_RANK: u32 = 4;
pub const MAX_VARS: u32 = 23;
/// 2^30 = ½ in M31.
const HALF_M31: u32 = 0x40000000;

/// `prefix` followed by i (< 100) in two decimal digits: w00, s07, lo12, mp16, …
pub fn numbered(prefix: felt252, i: u32) -> felt252 {
    let (tens, units): (felt252, felt252) = ((i / 10).into(), (i % 10).into());
    prefix * 0x10000 + ('0' + tens) * 0x100 + '0' + units
}

pub fn weight_name(i: u32) -> felt252 {
    numbered('w', i)
}

pub fn sums_name(i: u32) -> felt252 {
    numbered('s', i)
}

pub fn abs_name(i: u32) -> felt252 {
    numbered('a', i)
}

/// Every output a statement may have, s00 … s31 (Python `model.SUMS`).
pub fn all_sums() -> Span<felt252> {
    let mut out = array![];
    for i in 0..MAX_WEIGHTS {
        out.append(sums_name(i));
    }
    out.span()
}

fn constant(v: u32) -> QM31 {
    QM31Trait::new(v, 0, 0, 0)
}

/// One weight's declared range.
#[derive(Copy, Drop, Debug)]
pub struct Declared {
    pub bits: u32,
    pub summed: bool,
    pub shape: Span<u32>,
}

#[generate_trait]
pub impl DeclaredImpl of DeclaredTrait {
    fn n_vars(self: @Declared) -> u32 {
        tensor_vars(*self.shape)
    }

    fn split(self: @Declared) -> bool {
        *self.bits > LIMB_BITS
    }

    /// The bound a model walk reads it at, and the key's offset: 2^(b−1) − 1 summed, else
    /// 2^(b−1).
    fn magnitude(self: @Declared) -> u32 {
        pow2(*self.bits - 1) - if *self.summed {
            1
        } else {
            0
        }
    }

    fn matrix(self: @Declared) -> bool {
        self.shape.len() >= 2
    }

    /// The column sums' shape: the shape without its second-to-last axis, (1) for a vector.
    fn sums_shape(self: @Declared) -> Span<u32> {
        let shape = *self.shape;
        if !self.matrix() {
            return array![1].span();
        }
        let mut out = array![];
        out.append_span(shape.slice(0, shape.len() - 2));
        out.append(*shape[shape.len() - 1]);
        out.span()
    }

    /// κ: the summed axis' variables.
    fn rows_vars(self: @Declared) -> u32 {
        let shape = *self.shape;
        if self.matrix() {
            tensor_vars(array![*shape[shape.len() - 2]].span())
        } else {
            tensor_vars(shape)
        }
    }

    /// The variables after the summed axis' (none for a vector).
    fn columns_vars(self: @Declared) -> u32 {
        let shape = *self.shape;
        if self.matrix() {
            tensor_vars(array![*shape[shape.len() - 1]].span())
        } else {
            0
        }
    }

    /// The most a padded column of |w| can sum to.
    fn sums_bound(self: @Declared) -> u64 {
        pow2(self.rows_vars()).into() * self.magnitude().into()
    }

    /// Whether the bits or the size break the rules (`range.params`): 1 ≤ b ≤ 30, b ≤ 16 when
    /// summed, at most 2^23 entries (padded).
    fn params_problem(self: @Declared) -> bool {
        let top = if *self.summed {
            LIMB_BITS
        } else {
            MAX_BITS
        };
        *self.bits < 1 || *self.bits > top || self.n_vars() > MAX_VARS
    }
}

/// Whether a weight of `shape` cannot be declared so (Python `WeightRange.problem`'s parse): a
/// rank of 1 … 4, dims ≥ 1, and the bits' and size's rules.
pub fn declaration_problem(bits: u32, summed: bool, shape: Span<u32>) -> bool {
    if shape.len() < 1 || shape.len() > MAX_RANK {
        return true;
    }
    for d in shape {
        if *d < 1 {
            return true;
        }
    }
    Declared { bits, summed, shape }.params_problem()
}

/// dims = (b_0, summed_0, rank_0, *shape_0, b_1, …): `statement.shape` unless they parse into 1
/// … 32 weights, summed 0 or 1, of rank 1 … 4 and dims ≥ 1; `range.params` unless every
/// 1 ≤ b ≤ 30, b ≤ 16 when summed, and at most 2^23 entries (padded) a weight — in Python's
/// order, weight by weight.
pub fn parse_dims(dims: Span<u32>) -> Span<Declared> {
    let mut out = array![];
    let mut i = 0;
    while i < dims.len() {
        assert(i + 3 <= dims.len(), 'statement.shape');
        let (bits, summed, rank) = (*dims[i], *dims[i + 1], *dims[i + 2]);
        assert(summed <= 1 && rank >= 1 && rank <= MAX_RANK, 'statement.shape');
        assert(i + 3 + rank <= dims.len(), 'statement.shape');
        let shape = dims.slice(i + 3, rank);
        for d in shape {
            assert(*d >= 1, 'statement.shape');
        }
        let declared = Declared { bits, summed: summed == 1, shape };
        assert(!declared.params_problem(), 'range.params');
        out.append(declared);
        i += 3 + rank;
    }
    assert(out.len() >= 1 && out.len() <= MAX_WEIGHTS, 'statement.shape');
    out.span()
}

/// A lookup table: paired ([0, 2^width − 1), each row with |t − 2^(width−1) + 1|) or full.
#[derive(Copy, Drop, PartialEq, Debug)]
pub struct Table {
    pub width: u32,
    pub paired: bool,
}

#[generate_trait]
pub impl TableImpl of TableTrait {
    /// p12, t16, …
    fn name(self: @Table) -> felt252 {
        numbered(if *self.paired {
            'p'
        } else {
            't'
        }, *self.width)
    }

    /// The table's row at ρ (MSB first): the index MLE; paired, less (2^c − 1)·Πρ for the
    /// copied top row, plus β·(ρ_0·(l + 1) + (1 − ρ_0)·(2^(c−1) − 1 − l) − Πρ), l the index
    /// MLE of the low bits.
    fn rows_mle(self: @Table, point: Span<QM31>, beta: QM31) -> QM31 {
        let index = index_mle(point);
        if !*self.paired {
            return index;
        }
        let mut top = QM31Trait::one();
        for r in point {
            top = top * *r;
        }
        let low = index_mle(point.slice(1, point.len() - 1));
        let (h, one) = (*point[0], QM31Trait::one());
        let offset = constant(pow2(*self.width - 1) - 1);
        let magnitude = h * (low + one) + (one - h) * (offset - low) - top;
        index - top * constant(pow2(*self.width) - 1) + beta * magnitude
    }
}

/// A looked-up column: weight `weight`'s key whole ('v') or one of its limbs ('lo', 'hi').
#[derive(Copy, Drop, Debug)]
pub struct Column {
    pub weight: u32,
    pub part: felt252,
    pub table: Table,
    pub n_vars: u32,
}

/// The columns in instance order.
pub fn columns(weights: Span<Declared>) -> Span<Column> {
    let mut out = array![];
    let mut i = 0;
    for d in weights {
        let n_vars = d.n_vars();
        if d.split() {
            let lo = Table { width: LIMB_BITS, paired: false };
            out.append(Column { weight: i, part: 'lo', table: lo, n_vars });
            let hi = Table { width: *d.bits - LIMB_BITS, paired: false };
            out.append(Column { weight: i, part: 'hi', table: hi, n_vars });
        } else {
            let table = Table { width: *d.bits, paired: *d.summed };
            out.append(Column { weight: i, part: 'v', table, n_vars });
        }
        i += 1;
    }
    out.span()
}

/// The tables the columns use: paired by width, then full by width.
pub fn tables(cols: Span<Column>) -> Span<Table> {
    let mut out = array![];
    for paired in array![true, false] {
        for width in 1..(MAX_BITS + 1) {
            let table = Table { width, paired };
            let mut used = false;
            for c in cols {
                if *c.table == table {
                    used = true;
                    break;
                }
            }
            if used {
                out.append(table);
            }
        }
    }
    out.span()
}

fn table_index(tables: Span<Table>, table: Table) -> u32 {
    let mut j = 0;
    while *tables[j] != table {
        j += 1;
    }
    j
}

/// The summed weights, in index order (the proof's magnitudes are theirs).
pub fn summed(weights: Span<Declared>) -> Span<u32> {
    let mut out = array![];
    let mut i = 0;
    for d in weights {
        if *d.summed {
            out.append(i);
        }
        i += 1;
    }
    out.span()
}

/// Variables of each instance: the columns', then the tables' widths.
pub fn instance_vars(cols: Span<Column>, tables: Span<Table>) -> Span<u32> {
    let mut out = array![];
    for c in cols {
        out.append(*c.n_vars);
    }
    for t in tables {
        out.append(*t.width);
    }
    out.span()
}

/// Per table: its columns' instances against its own (`check_balance`).
pub fn balanced(cols: Span<Column>, tables: Span<Table>) -> Span<(Span<u32>, Span<u32>)> {
    let mut out = array![];
    let mut j = 0;
    for t in tables {
        let mut witness = array![];
        let mut i = 0;
        for c in cols {
            if *c.table == *t {
                witness.append(i);
            }
            i += 1;
        }
        out.append((witness.span(), array![cols.len() + j].span()));
        j += 1;
    }
    out.span()
}

/// The committed columns: m<table> per table, |w| of the summed weights, the split weights'
/// limbs; None when one fits no stack (Python raises ValueError: `range.params`).
pub fn witness_layout(weights: Span<Declared>) -> Option<StackLayout> {
    let cols = columns(weights);
    let (mut names, mut sizes) = (array![], array![]);
    for t in tables(cols) {
        names.append('m' * 0x1000000 + t.name());
        sizes.append(*t.width);
    }
    for i in summed(weights) {
        names.append(abs_name(*i));
        sizes.append((*weights[*i]).n_vars());
    }
    for c in cols {
        if *c.part != 'v' {
            names.append(numbered(*c.part, *c.weight));
            sizes.append(*c.n_vars);
        }
    }
    StackLayoutTrait::of_columns(names.span(), sizes.span(), STACK_VARS)
}

/// α_t per table, then β.
#[derive(Drop)]
pub struct Challenges {
    pub alphas: Span<QM31>,
    pub beta: QM31,
}

pub fn draw<C, +Drop<C>, +Channel<C>>(ref channel: C, n_tables: u32) -> Challenges {
    let c = channel.draw_secure_felts(n_tables + 1).span();
    Challenges { alphas: c.slice(0, n_tables), beta: *c[n_tables] }
}

/// The column-sums claim s̃(r) as the claim on ã at (r_lead, ½^κ, r_col), value s̃(r)/2^κ.
fn sums_claim(d: @Declared, claim: Claim) -> Claim {
    let half = constant(HALF_M31);
    let kappa = d.rows_vars();
    let lead = claim.point.len() - d.columns_vars();
    let mut point = array![];
    point.append_span(claim.point.slice(0, lead));
    let mut scale = QM31Trait::one();
    for _ in 0..kappa {
        point.append(half);
        scale = scale * half;
    }
    point.append_span(claim.point.slice(lead, claim.point.len() - lead));
    Claim { point: point.span(), value: claim.value * scale }
}

/// `logup.numerator` unless every column leaf's numerator is 1, `range.table` unless every
/// table leaf's denominator is α_t minus its rows' MLE; then the claims on the weights (name
/// order) and on the witness stacks. `magnitudes`: ã(ρ) per summed weight; `sums`: the walk's
/// claims on the column sums, in name order.
pub fn leaf_claims(
    weights: Span<Declared>,
    ch: @Challenges,
    leaves: Span<LeafClaim>,
    magnitudes: Span<QM31>,
    sums: Span<Claim>,
) -> (Span<ClaimsOn>, Span<ClaimsOn>) {
    let cols = columns(weights);
    let tabs = tables(cols);
    let mut values = array![];
    let mut i = 0;
    for c in cols {
        let leaf = *leaves[i];
        assert(leaf.numerator == QM31Trait::one(), 'logup.numerator');
        values.append(*ch.alphas[table_index(tabs, *c.table)] - leaf.denominator);
        i += 1;
    }
    let mut witness = array![];
    let mut j = 0;
    for t in tabs {
        let leaf = *leaves[cols.len() + j];
        let expected = *ch.alphas[j] - t.rows_mle(leaf.point, *ch.beta);
        assert(leaf.denominator == expected, 'range.table');
        let name = 'm' * 0x1000000 + t.name();
        let claim = Claim { point: leaf.point, value: leaf.numerator };
        witness.append(ClaimsOn { name, claims: array![claim].span() });
        j += 1;
    }
    let mut on_weights = array![];
    let (mut col, mut k) = (0, 0);
    let mut w = 0;
    for d in weights {
        let offset = constant(d.magnitude());
        let point = (*leaves[col]).point;
        let mut value = *values[col];
        if d.split() {
            let (lo, hi) = (value, *values[col + 1]);
            witness.append(single(numbered('lo', w), Claim { point, value: lo }));
            witness.append(single(numbered('hi', w), Claim { point, value: hi }));
            value = hi * constant(pow2(LIMB_BITS)) + lo;
            col += 2;
        } else {
            col += 1;
        }
        value = value - offset;
        if *d.summed {
            let magnitude = *magnitudes[k];
            value = value - *ch.beta * magnitude;
            let at_leaf = Claim { point, value: magnitude };
            let claims = array![at_leaf, sums_claim(d, *sums[k])].span();
            witness.append(ClaimsOn { name: abs_name(w), claims });
            k += 1;
        }
        on_weights.append(single(weight_name(w), Claim { point, value }));
        w += 1;
    }
    (on_weights.span(), stack_claims(STACKS, @witness_layout(weights).unwrap(), witness.span()))
}
