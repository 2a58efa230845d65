//! add (mirror of prover/layers/add/model.py `check` and verifier.py; docs/layers/add.md):
//! y = a + b entry by entry, so Ŷ = Â + B̂ as MLEs and one value, Â(r), splits the claim on y.

use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252Channel;
use crate::pcs::proof::Claim;
use crate::ranges::exceeds_half;
use crate::walk::layer::{LayerClaims, single};
use crate::walk::proof::AddProof;
use crate::walk::statement::{OutputClaims, PublicStatement, expect_shapes, output_claim, tensor};
use crate::walk::tensor::{Bound, PublicTensorTrait, at_most};

/// dims (rows, cols); a, b and y of rows × cols, no weights (`statement.shape`); when a and b
/// are known, max|a| + max|b| ≤ (p − 1)/2 (`statement.range`: then y = a + b over the
/// integers); with either committed the relation holds mod p only.
pub fn check(st: @PublicStatement) {
    let dims = *st.dims;
    assert(dims.len() == 2, 'statement.shape');
    let (rows, cols) = (*dims[0], *dims[1]);
    assert(rows >= 1 && cols >= 1, 'statement.shape');
    let shape = array![rows, cols].span();
    expect_shapes(*st.inputs, array!['a', 'b'].span(), array![shape, shape].span());
    expect_shapes(*st.outputs, array!['y'].span(), array![shape].span());
    expect_shapes(*st.weights, array![].span(), array![].span());
    assert(!exceeds_half(bound(st)), 'statement.range');
}

/// max|a| + max|b| when both are known (a hidden one at its bound), the bound on y.
fn bound(st: @PublicStatement) -> Option<u128> {
    let (a, b) = (tensor(*st.inputs, 'a'), tensor(*st.inputs, 'b'));
    if a.known() && b.known() {
        Some(a.max_magnitude() + b.max_magnitude())
    } else {
        None
    }
}

/// The bound on y a consumer may assume (docs/model-walk.md), after `check`.
pub fn output_bounds(st: @PublicStatement) -> Span<Option<Bound>> {
    array![at_most(bound(st))].span()
}

/// (r, y) on y becomes (r, v_a) on a and (r, y − v_a) on b, after v_a is absorbed.
pub fn verify(
    st: @PublicStatement, proof: @AddProof, outputs: OutputClaims, ref channel: Poseidon252Channel,
) -> LayerClaims {
    let out = output_claim(outputs, 'y');
    let a_value = *proof.a_value;
    channel.mix_felts(array![a_value].span());
    let a = single('a', Claim { point: out.point, value: a_value });
    let b = single('b', Claim { point: out.point, value: out.value - a_value });
    LayerClaims { inputs: array![a, b].span(), weights: array![].span(), witness: array![].span() }
}
