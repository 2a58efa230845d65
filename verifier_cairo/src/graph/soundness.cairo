//! The model walk's soundness rule (mirror of prover/graph/views.py `error_terms` and
//! `graph.params`; docs/model-walk.md, "Soundness"). Python sums the terms as floats and
//! refuses a graph below 96 bits. Here each term is an upper bound in units of 2^-200,
//! rounded up: a count N over |F| = p^4 is N·⌈2^200/p^4⌉, a sum-check layer's 2^-110 is
//! 2^90, a PCS opening's query term 2^-pow·(5/8)^120 (120 queries at rate 1/4, the contract's
//! parameters) is ⌈2^200·(5/8)^120⌉ / 2^pow rounded up. The graph is refused when the total
//! exceeds 2^104 units (2^-96). The rounding adds at most a few hundred units (2^-192) and
//! Python's float sum errs by about 2^-52 of the total: the verdicts differ only for a total
//! within 2^-148 of 2^-96.

use crate::merkle::hashers::HASH_BLAKE2S;
use crate::pcs::params::{PcsParams, witness_params};
use crate::softmax::soundness::pow2_u128;

/// ⌈2^200 / p^4⌉: one count over |F| in units.
const FIELD_UNIT: u256 = 75557863866651811938305;
/// SUMCHECK_ERROR = 2^-110 in units.
const SUMCHECK_UNITS: u256 = 0x40000000000000000000000;
/// ⌈2^200·(5/8)^120⌉.
const QUERY_UNITS: u256 = 514755758946802891813895217347168897;
/// 2^-96 in units.
const REFUSED_ABOVE: u256 = 0x100000000000000000000000000;

/// A batch opening's term (Python `PcsParams.security_bits`) for a largest polynomial of
/// 2^n_vars values and `claims` claims: the queries, 3·2^(n+β)/|F| for the combination and
/// folds, (4n + claims)/|F| for the sum-checks.
pub fn opening_units(params: @PcsParams, n_vars: u32, claims: u32) -> u256 {
    let grinding: u256 = pow2_u128(*params.pow_bits).into();
    let queries = (QUERY_UNITS + grinding - 1) / grinding;
    let folds: u256 = 3 * pow2_u128(n_vars + *params.log_blowup).into();
    queries + (folds + 4 * n_vars.into() + claims.into()) * FIELD_UNIT
}

/// The running total of the walk's terms.
#[derive(Copy, Drop, Serde)]
pub struct ErrorTotal {
    pub units: u256,
}

#[generate_trait]
pub impl ErrorTotalImpl of ErrorTotalTrait {
    fn new() -> ErrorTotal {
        ErrorTotal { units: 0 }
    }

    /// `count` over |F|.
    fn add_count(ref self: ErrorTotal, count: u128) {
        self.units += count.into() * FIELD_UNIT;
    }

    /// A node's own terms: its count, or SUMCHECK_ERROR for a layer of sum-checks only.
    fn add_layer(ref self: ErrorTotal, count: Option<u128>) {
        match count {
            Some(c) => self.add_count(c),
            None => self.units += SUMCHECK_UNITS,
        }
    }

    fn add_opening(ref self: ErrorTotal, params: @PcsParams, n_vars: u32, claims: u32) {
        self.units += opening_units(params, n_vars, claims);
    }

    /// The witness opening's term (Python `opening_error`), when it opens anything.
    fn add_witness(ref self: ErrorTotal, largest: Option<u32>, claims: u32) {
        if let Some(n) = largest {
            // Either hash's parameters: the hash changes no count.
            self.add_opening(@witness_params(HASH_BLAKE2S).unwrap(), n, claims);
        }
    }

    /// `graph.params` if the terms total less than 96 bits.
    fn expect_target(self: @ErrorTotal) {
        assert(*self.units <= REFUSED_ABOVE, 'graph.params');
    }
}
