//! Projections O_j = X·W_j + 1·B_jᵀ of one input X (mirror of
//! prover/layers/linear/projection.py; docs/layers/linear.md): the relation matmul (no bias),
//! linear, qkv and qkv-decode share. `Projections` names the tensors and the checks of one batch; its
//! statement check, its λ-batched, inner-masked degree-3 sum-check and the claims it leaves are written once.

use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::{log2_padded, prefix_mask};
use crate::pcs::proof::Claim;
use crate::ranges::{HALF, Lines, exceeds_half, max_magnitude, product_bound, product_within, row_lines};
use crate::sameply::rounds;
use crate::sumcheck::verify_sumcheck;
use crate::walk::layer::{ClaimsOn, LayerClaims};
use crate::walk::proof::ProjectionProof;
use crate::walk::statement::{OutputClaims, PublicStatement, expect_shapes, output_claim, tensor};
use crate::walk::tensor::{Bound, Known, PublicTensor, PublicTensorTrait, Tensors, at_most};

pub const DEGREE: u32 = 3;

/// One projection O = X·W + 1·Bᵀ: the names of O, W and B (None: no bias, as matmul).
#[derive(Copy, Drop)]
pub struct Projection {
    pub output: felt252,
    pub w: felt252,
    pub b: Option<felt252>,
}

/// A batch of projections of the input `x` and the names of its checks (`<kind>.value_count`,
/// `<kind>.final_evaluation`, `kind` the layer whose statement this is; qkv-decode's steps
/// run qkv's).
#[derive(Copy, Drop)]
pub struct Projections {
    /// The name of X in the statement.
    pub input: felt252,
    /// In the batch's order, which fixes the bias order and λ_j in the transcript.
    pub batch: Span<Projection>,
    /// The batch's indices in the outputs' name order. The weights' names sort the same way,
    /// every B's before every W's ('b…' < 'w…').
    pub by_name: Span<u32>,
    pub value_count: felt252,
    pub final_evaluation: felt252,
}

/// matmul (prover/layers/matmul/model.py `MATMUL`): c = a·b.
/// The projections of a kind of the matmul family (`statement.kind` for any other).
pub fn projections(kind: felt252) -> Projections {
    if kind == 'linear' {
        linear()
    } else if kind == 'qkv' {
        qkv()
    } else if kind == 'matmul' {
        matmul()
    } else {
        core::panic_with_felt252('statement.kind')
    }
}

pub fn matmul() -> Projections {
    Projections {
        input: 'a',
        batch: array![Projection { output: 'c', w: 'b', b: None }].span(),
        by_name: array![0].span(),
        value_count: 'matmul.value_count',
        final_evaluation: 'matmul.final_evaluation',
    }
}

/// linear (prover/layers/linear/model.py `LINEAR`): y = x·w + b.
pub fn linear() -> Projections {
    Projections {
        input: 'x',
        batch: array![Projection { output: 'y', w: 'w', b: Some('b') }].span(),
        by_name: array![0].span(),
        value_count: 'linear.value_count',
        final_evaluation: 'linear.final_evaluation',
    }
}

/// qkv (prover/layers/qkv/model.py `QKV`): j = x·w_j + b_j for j = q, k, v.
pub fn qkv() -> Projections {
    Projections {
        input: 'x',
        batch: array![
            Projection { output: 'q', w: 'w_q', b: Some('b_q') },
            Projection { output: 'k', w: 'w_k', b: Some('b_k') },
            Projection { output: 'v', w: 'w_v', b: Some('b_v') },
        ]
            .span(),
        by_name: array![1, 0, 2].span(),
        value_count: 'qkv.value_count',
        final_evaluation: 'qkv.final_evaluation',
    }
}

/// The claim O_j(rows[row], col) = value on projection j's output (in the batch's order).
#[derive(Copy, Drop)]
pub struct Target {
    pub row: u32,
    pub col: Span<QM31>,
    pub value: QM31,
}

#[generate_trait]
pub impl ProjectionsImpl of ProjectionsTrait {
    /// The outputs' names in name order.
    fn output_names(self: @Projections) -> Span<felt252> {
        let mut names = array![];
        for j in *self.by_name {
            names.append(*(*self.batch)[*j].output);
        }
        names.span()
    }

    /// Per projection (batch order), the index of its B_j's value in `ProjectionProof.bias`.
    fn bias_slots(self: @Projections) -> Span<Option<u32>> {
        let mut slots = array![];
        let mut next = 0;
        for p in *self.batch {
            if p.b.is_some() {
                slots.append(Some(next));
                next += 1;
            } else {
                slots.append(None);
            }
        }
        slots.span()
    }

    /// The weights in name order: every B_j there is (a vector of h), then every W_j (e × h).
    fn weight_shapes(self: @Projections, e: u32, h: u32) -> (Span<felt252>, Span<Span<u32>>) {
        let mut names = array![];
        let mut shapes = array![];
        for j in *self.by_name {
            if let Some(b) = *(*self.batch)[*j].b {
                names.append(b);
                shapes.append(array![h].span());
            }
        }
        for j in *self.by_name {
            names.append(*(*self.batch)[*j].w);
            shapes.append(array![e, h].span());
        }
        (names.span(), shapes.span())
    }

    /// dims (s, e, h); X: s × e, every O_j: s × h, W_j: e × h, B_j: h; then the no-wrap bounds.
    fn check(self: @Projections, st: @PublicStatement) {
        let dims = *st.dims;
        assert(dims.len() == 3, 'statement.shape');
        let (s, e, h) = (*dims[0], *dims[1], *dims[2]);
        assert(s >= 1 && e >= 1 && h >= 1, 'statement.shape');
        expect_shapes(*st.inputs, array![*self.input].span(), array![array![s, e].span()].span());
        let mut shapes = array![];
        for _ in *self.by_name {
            shapes.append(array![s, h].span());
        }
        expect_shapes(*st.outputs, self.output_names(), shapes.span());
        let (names, shapes) = self.weight_shapes(e, h);
        expect_shapes(*st.weights, names, shapes);
        self.check_ranges(*st.inputs, *st.weights, e, h);
    }

    /// Per projection (batch order), |x·w_j + b_j| ≤ product_bound(x, w_j) + max|b_j| ≤ (p−1)/2
    /// (`statement.range`), x with e columns and every W_j with h. A projection with a
    /// committed X, W_j or B_j is skipped unless the committed weights are declared: it holds
    /// mod p only (prover/ranges.py `check_ranges`).
    fn check_ranges(self: @Projections, inputs: Tensors, weights: Tensors, e: u32, h: u32) {
        let x = tensor(inputs, *self.input);
        for p in *self.batch {
            let w = tensor(weights, *p.w);
            if w.known != Known::Values {
                assert(!exceeds_half(self.bound(x, weights, *p, e)), 'statement.range');
                continue;
            }
            if !x.known() {
                continue;
            }
            let mut limit = HALF;
            if let Some(name) = *p.b {
                let b = tensor(weights, name);
                if b.commitment.is_some() {
                    continue;
                }
                limit -= max_magnitude(b.values);
            }
            // A hidden x with public weights: never on chain (a graph's weights are committed).
            assert(x.known == Known::Values, 'calldata.offchain');
            assert(product_within(x.values, e, w.values, h, limit), 'statement.range');
        }
    }

    /// Per output in name order, the bound its relation gives it (Python `_output_bound`) when
    /// its weights are declared: a graph's weights are committed on chain, so a projection's
    /// output has a bound exactly when they are (`bound`).
    fn output_bounds(self: @Projections, st: @PublicStatement) -> Span<Option<Bound>> {
        let x = tensor(*st.inputs, *self.input);
        let e = *(*st.dims)[1];
        let mut out = array![];
        for j in *self.by_name {
            out.append(at_most(self.bound(x, *st.weights, *(*self.batch)[*j], e)));
        }
        out.span()
    }

    /// product_bound(x, w) + max|b| for a declared W (and B, if any): x by its values or its
    /// bound, W by its declared magnitude and column sums; None (skipped) when W or B is
    /// committed undeclared, or x is unbounded.
    fn bound(self: @Projections, x: PublicTensor, weights: Tensors, p: Projection, e: u32) -> Option<u128> {
        let w = match tensor(weights, p.w).known {
            Known::Declared(range) => Lines {
                abs: range.col_abs, max: range.magnitude, sq: range.magnitude * range.col_abs,
            },
            _ => { return None; },
        };
        let mut bias = 0;
        if let Some(name) = p.b {
            let b = tensor(weights, name);
            if !b.known() {
                return None;
            }
            bias = b.max_magnitude();
        }
        let x = match x.known {
            Known::Values => row_lines(x.values, e),
            Known::AtMost(bound) => {
                let e: u128 = e.into();
                let sq = match bound.row_sq {
                    Some(row_sq) => row_sq,
                    None => e * bound.max * bound.max,
                };
                Lines { abs: e * bound.max, max: bound.max, sq }
            },
            _ => { return None; },
        };
        Some(product_bound(x, w) + bias)
    }

    /// Each output claim's point split into its row point a_j and its column point c_j.
    fn split(
        self: @Projections, outputs: OutputClaims, row_vars: u32,
    ) -> (Span<Span<QM31>>, Span<Target>) {
        let mut rows = array![];
        let mut targets = array![];
        let mut i = 0;
        for p in *self.batch {
            let claim = output_claim(outputs, *p.output);
            let cols = claim.point.len() - row_vars;
            rows.append(claim.point.slice(0, row_vars));
            let col = claim.point.slice(row_vars, cols);
            targets.append(Target { row: i, col, value: claim.value });
            i += 1;
        }
        (rows.span(), targets.span())
    }

    /// The claims the sum-check leaves: X(a, r) per row point, then B_j(c_j) and W_j(r, c_j)
    /// in the weights' name order.
    fn claims(
        self: @Projections,
        rows: Span<Span<QM31>>,
        targets: Span<Target>,
        point: Span<QM31>,
        proof: @ProjectionProof,
    ) -> (Span<Claim>, Span<ClaimsOn>) {
        let mut x_claims = array![];
        let mut i = 0;
        for a in rows {
            x_claims.append(Claim { point: join(*a, point), value: *proof.x[i] });
            i += 1;
        }
        let mut weights = array![];
        let slots = self.bias_slots();
        for j in *self.by_name {
            if let Some(slot) = *slots[*j] {
                let claim = Claim { point: (*targets[*j]).col, value: *proof.bias[slot] };
                let name = (*(*self.batch)[*j].b).unwrap();
                weights.append(ClaimsOn { name, claims: array![claim].span() });
            }
        }
        for j in *self.by_name {
            let t = *targets[*j];
            let claim = Claim { point: join(point, t.col), value: *proof.w[*j] };
            weights.append(ClaimsOn { name: *(*self.batch)[*j].w, claims: array![claim].span() });
        }
        (x_claims.span(), weights.span())
    }

    /// Σ_j λ_j (y_j − m_j·B_j(c_j)) = Σ_z M(z)·Σ_j λ_j X(a_j, z)·W_j(z, c_j) over the
    /// log ê variables of the inner dimension e = `inner`, M the mask of its true indices (a
    /// committed X and W may hold anything in their padding); masks[i]: the bias rows' mask at
    /// row point i. Returns the sum-check's point r.
    fn verify_projection(
        self: @Projections,
        proof: @ProjectionProof,
        targets: Span<Target>,
        masks: Span<QM31>,
        inner: u32,
        ref channel: Poseidon252Channel,
    ) -> Span<QM31> {
        let n_vars = log2_padded(inner);
        let count = (*self.batch).len();
        let slots = self.bias_slots();
        let mut biases = 0;
        for slot in slots {
            if slot.is_some() {
                biases += 1;
            }
        }
        assert(proof.bias.len() == biases, *self.value_count);
        assert(proof.x.len() == masks.len(), *self.value_count);
        assert(proof.w.len() == count, *self.value_count);
        channel.mix_felts(proof.bias.span());
        let mut lambdas = array![QM31Trait::one()];
        lambdas.append_span(channel.draw_secure_felts(count - 1).span());
        let mut claim = QM31Trait::zero();
        let mut i = 0;
        for t in targets {
            let term = match *slots[i] {
                Some(slot) => *t.value - *masks[*t.row] * *proof.bias[slot],
                None => *t.value,
            };
            claim = claim + *lambdas[i] * term;
            i += 1;
        }
        let (point, final) = verify_sumcheck(
            claim, rounds(proof.sumcheck.rounds), n_vars, DEGREE, ref channel,
        );
        let mut values = array![];
        values.append_span(proof.x.span());
        values.append_span(proof.w.span());
        channel.mix_felts(values.span());
        let mut expected = QM31Trait::zero();
        let mut i = 0;
        for t in targets {
            expected = expected + *lambdas[i] * *proof.x[*t.row] * *proof.w[i];
            i += 1;
        }
        assert(final == expected * prefix_mask(point, inner), *self.final_evaluation);
        point
    }

    /// A layer of dims (s, e, h) whose outputs are exactly the batch's: O(log s + log e + log h)
    /// field work (mirror of `verify_layer`).
    fn verify_layer(
        self: @Projections,
        st: @PublicStatement,
        proof: @ProjectionProof,
        outputs: OutputClaims,
        ref channel: Poseidon252Channel,
    ) -> LayerClaims {
        let dims = *st.dims;
        let (s, e) = (*dims[0], *dims[1]);
        let (rows, targets) = self.split(outputs, log2_padded(s));
        let mut masks = array![];
        for a in rows {
            masks.append(prefix_mask(*a, s));
        }
        let point = self
            .verify_projection(proof, targets, masks.span(), e, ref channel);
        let (x_claims, weights) = self.claims(rows, targets, point, proof);
        let inputs = array![ClaimsOn { name: *self.input, claims: x_claims }].span();
        LayerClaims { inputs, weights, witness: array![].span() }
    }
}

/// a‖b.
pub fn join(a: Span<QM31>, b: Span<QM31>) -> Span<QM31> {
    let mut out = array![];
    out.append_span(a);
    out.append_span(b);
    out.span()
}
