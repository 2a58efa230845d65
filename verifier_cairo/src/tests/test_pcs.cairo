//! PCS building blocks against Python; honest and tampered openings, committed weights bound
//! to the registry and sessions are the generated tests of `pcs_vectors`.

use crate::bounded_int::{Double, downcast, upcast};
use crate::channels::base::Channel;
use crate::channels::poseidon252::Poseidon252ChannelTrait;
use crate::contract::ICairnVerifierDispatcherTrait;
use crate::fields::m31::M31Trait;
use crate::fields::qm31::QM31Trait;
use crate::pcs::code::{
    CANONICAL_BITS, FOLD_GROWTH, MAX_BITS, batch_inverse, coords, fold_offsets, fold_pair, from_coords,
    reduce_word,
};
use crate::pcs::domain::{BlockTwiddlesTrait, CirclePoint, circle_mul, gen_pow2};
use crate::pcs::front::FrontReplayTrait;
use crate::merkle::hashers::{HASH_BLAKE2S, HASH_POSEIDON};
use crate::pcs::params::{BLAKE2S_PARAMS, POSEIDON_PARAMS, fold_groups, witness_params};
use crate::pcs::proof::OpeningFront;
use crate::pcs::queries::{BatchLayoutTrait, leaf_rows, shift_distinct, sorted_distinct};
use super::pcs_vectors::{
    blake2s_params, fold_cases, inverse_case, mix_u32s_cases, poseidon_params, pow_cases, query_case,
    twiddle_cases, witness_params_blake2s, witness_params_poseidon,
};
use super::support::deploy_with_models;

#[test]
fn mix_u32s_matches_python() {
    for (start, words, digest) in mix_u32s_cases() {
        let mut channel = Poseidon252ChannelTrait::new(start);
        channel.mix_u32s(words);
        assert_eq!(channel.digest(), digest);
    }
}

#[test]
fn proof_of_work_matches_python() {
    for (digest, n_bits, nonce, ok) in pow_cases() {
        assert_eq!(Poseidon252ChannelTrait::new(digest).verify_pow_nonce(n_bits, nonce), ok);
    }
}

/// G^(2^m) doubles into G^(2^(m+1)); G^(2^30) is (−1, 0), of order 2.
#[test]
fn generator_powers_double() {
    for m in 0..30_u32 {
        let point = gen_pow2(m);
        assert_eq!(circle_mul(point, point), gen_pow2(m + 1));
    }
    let minus_one = CirclePoint { x: -M31Trait::one(), y: M31Trait::zero() };
    assert_eq!(gen_pow2(30), minus_one);
}

#[test]
fn block_twiddles_match_python() {
    for (log_size, block, k, expected) in twiddle_cases() {
        let mut got: Array<felt252> = array![];
        for x in BlockTwiddlesTrait::new(log_size, k).at(block) {
            got.append(upcast(*x));
        }
        let mut want: Array<felt252> = array![];
        for x in expected {
            want.append((*x).into());
        }
        assert_eq!(got, want);
    }
}

#[test]
fn folds_match_python() {
    for (lo, hi, inv_2x, r, expected) in fold_cases() {
        let folded = fold_pair(coords(lo), coords(hi), inv_2x.into(), coords(r), @fold_offsets(31));
        assert_eq!(from_coords(reduce_word(folded.span()).into_coords()), expected);
    }
}

#[generate_trait]
impl IntoCoords of IntoCoordsTrait {
    fn into_coords(self: Span<felt252>) -> [felt252; 4] {
        [*self[0], *self[1], *self[2], *self[3]]
    }
}

fn max_below(bits: u32) -> felt252 {
    let mut x: felt252 = 1;
    for _ in 0..bits {
        x = x + x;
    }
    x - 1
}

/// Folds of unreduced coordinates at every bound a fold path reaches (the most the bound allows
/// in lo, hi or both, r and 1/(2x) at p − 1) equal the fold of their reductions: nothing wraps.
#[test]
fn unreduced_folds_do_not_wrap() {
    let top: felt252 = 0x7ffffffe;
    let r = [top, top, top, top];
    let mut bits = CANONICAL_BITS;
    while bits + FOLD_GROWTH <= MAX_BITS {
        let big = max_below(bits);
        for (lo, hi) in array![(big, 0), (0, big), (big, big)] {
            let (lo_c, hi_c) = (M31Trait::reduce_felt(lo), M31Trait::reduce_felt(hi));
            let wide = fold_pair([lo, lo, lo, lo], [hi, hi, hi, hi], top, r, @fold_offsets(bits));
            let narrow = fold_pair(
                [lo_c, lo_c, lo_c, lo_c], [hi_c, hi_c, hi_c, hi_c], top, r, @fold_offsets(31),
            );
            assert_eq!(reduce_word(wide.span()), reduce_word(narrow.span()));
        }
        bits += FOLD_GROWTH;
    }
    assert_eq!(bits, CANONICAL_BITS + 3 * FOLD_GROWTH);
}

#[test]
#[should_panic(expected: ('pcs.fold_bits',))]
fn no_fold_past_2_pow_251() {
    fold_offsets(MAX_BITS - FOLD_GROWTH + 1);
}

/// Every chunking (the last chunk of one, two or three xs), and xs up to 2(p − 1), the widest
/// doubled residue.
#[test]
fn batch_inverse_every_chunking() {
    let (values, _) = inverse_case();
    let mut all: Array<Double> = array![];
    for v in values {
        all.append(double(*v));
    }
    for v in array![0xfffffffc, 0xfffffffb, 0xfffffff0, 0x80000000, 3].span() {
        all.append(double(*v));
    }
    for n in 1..all.len() + 1 {
        let xs = all.span().slice(0, n);
        let mut got = batch_inverse(xs);
        let mut i = 0;
        while let Some(inv) = got.pop_back() {
            let x: felt252 = upcast(*xs[i]);
            assert_eq!(M31Trait::reduce_felt(x * *inv), 1);
            assert(M31Trait::reduce_felt(*inv) == *inv, 'not canonical');
            i += 1;
        }
        assert_eq!(i, n);
    }
}

#[test]
fn batch_inverse_matches_python() {
    let (values, inverses) = inverse_case();
    let mut xs: Array<Double> = array![];
    for v in values {
        xs.append(double(*v));
    }
    // Last first.
    let mut got = batch_inverse(xs.span());
    let mut i = 0;
    while let Some(inv) = got.pop_back() {
        assert_eq!(*inv, (*inverses[i]).into());
        i += 1;
    }
    assert_eq!(i, values.len());
    assert_eq!(batch_inverse(array![].span()).len(), 0);
}

/// A test value as a `Double` (below 2(p − 1) + 1).
fn double(x: u32) -> Double {
    downcast(x).unwrap()
}

#[test]
fn sorted_positions_match_python() {
    let (values, distinct, shifted) = query_case();
    let sorted = sorted_distinct(values);
    assert_eq!(sorted, distinct);
    assert_eq!(shift_distinct(sorted, 5), shifted);
    // Each position's leaf row among the shifted leaves.
    let rows = leaf_rows(shifted, sorted, 5);
    let mut i = 0;
    for position in sorted {
        assert_eq!(*shifted[*rows[i]], *position / 32);
        i += 1;
    }
}

#[test]
fn fold_groups_and_layout_match_python() {
    assert_eq!(fold_groups(0, 4), array![(0, 0)].span());
    assert_eq!(fold_groups(4, 4), array![(0, 4)].span());
    assert_eq!(fold_groups(10, 4), array![(0, 4), (4, 8), (8, 10)].span());
    // Sizes 7, 3, 0, 5 with arity 2: levels 0, 4, 7, 2 in groups 0, 1, 3, 0.
    let layout = BatchLayoutTrait::new(array![7, 3, 0, 5].span(), 2);
    assert_eq!(layout.levels, array![0, 4, 7, 2].span());
    assert_eq!(layout.poly_groups, array![0, 1, 3, 0].span());
    assert_eq!(layout.group_polys(0), array![0, 3].span());
    assert_eq!(layout.entering(4), array![1].span());
}

/// The parameters the contract compiles in are Python's production ones.
#[test]
fn contract_parameters_are_python_production_parameters() {
    assert_eq!(POSEIDON_PARAMS, poseidon_params());
    assert_eq!(BLAKE2S_PARAMS, blake2s_params());
    assert_eq!(witness_params(HASH_BLAKE2S).unwrap(), witness_params_blake2s());
    assert_eq!(witness_params(HASH_POSEIDON).unwrap(), witness_params_poseidon());
    assert!(witness_params(0).is_none());
}

#[test]
#[should_panic(expected: ('session.unknown', 'ENTRYPOINT_FAILED'))]
fn continuing_an_unknown_session() {
    let verifier = deploy_with_models(array![]);
    verifier.continue_session(1, array![].span(), array![].span(), array![].span());
}

/// A front's stages out of order panic (`pcs.stage`): finishing before its polynomial is
/// absorbed and reduced (the main contract never does: the step parts come in order).
#[test]
#[should_panic(expected: ('pcs.stage',))]
fn front_finished_before_its_stages() {
    let front = OpeningFront {
        merge: array![].span(),
        merged_values: array![].span(),
        fold: array![].span(),
        layer_roots: array![].span(),
        final_value: QM31Trait::zero(),
        pow_nonce: 0,
    };
    let channel = Poseidon252ChannelTrait::new(0);
    let vars = array![1].span();
    let mut replay = FrontReplayTrait::start(
        @POSEIDON_PARAMS, vars, array![5].span(), front, channel,
    );
    replay.finish(@POSEIDON_PARAMS);
}
