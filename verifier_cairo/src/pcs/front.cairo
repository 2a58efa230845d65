//! The PCS verifier's front in stages (mirror of prover/pcs/front.py; docs/pcs.md, "The front
//! in stages"): what `verify_front` replays before the queries, cut so that no stage needs
//! more than a run of the statement's polynomials' claims. A session verifies a model walk's
//! witness opening this way over several transactions (`FrontReplay` is in its state);
//! `verify_front` runs the stages at once.
//!
//! 1. `start`: the tag, the parameters, the number of polynomials.
//! 2. `absorb`, polynomial by polynomial: its claims' shape checked, its root, size and claims
//!    absorbed; after the last, the counts (`check_shape`) and the merge's start: α, the
//!    merge's rounds replayed for the point r (their arithmetic waits for the merged claim),
//!    the merged values.
//! 3. `reduce`, polynomial by polynomial: the merged claim and what the merge ends at.
//! 4. `finish`: the merge's end (`pcs.merge`), β, the folding sum-check, the final value, the
//!    grinding.

use crate::channels::base::Channel;
use crate::fields::m31::M31Trait;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::merkle::hashers::{HASH_POSEIDON, STARK_PRIME};
use crate::mle::eq_eval;
use crate::sumcheck::evaluate_round;
use super::params::PcsParams;
use super::proof::{Claim, OpeningFront};
use super::queries::{BatchLayout, BatchLayoutTrait, pow2};
use super::transcript::{PcsChannel, QuerySeed, absorb_head, absorb_poly};

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

/// A front replayed up to polynomial `absorbed` (stage 2), then `reduced` (stage 3), on its
/// channel. While absorbing: whether the claims are aligned (one per polynomial, every point a
/// suffix of the first longest one), that point and the claims' values. Once every polynomial
/// is absorbed `point` is r; without alignment `alpha` is the merge coefficient, `power` the
/// next claim's λ, `claim` and `expected` the merged claim and the merge's end so far.
#[derive(Drop, Serde)]
pub struct FrontReplay<C> {
    pub channel: C,
    pub poly_vars: Span<u32>,
    pub poly_roots: Span<u256>,
    pub front: OpeningFront,
    pub absorbed: u32,
    pub reduced: u32,
    pub aligned: bool,
    pub longest: Span<QM31>,
    pub values: Span<QM31>,
    pub point: Span<QM31>,
    pub alpha: QM31,
    pub power: QM31,
    pub claim: QM31,
    pub expected: QM31,
}

#[generate_trait]
pub impl FrontReplayImpl<
    C, +Drop<C>, +Channel<C>, +PcsChannel<C>,
> of FrontReplayTrait<C> {
    /// Stage 1: `pcs.statement` if there is no polynomial, then the tag and parameters.
    #[inline(never)]
    fn start(
        params: @PcsParams,
        poly_vars: Span<u32>,
        poly_roots: Span<u256>,
        front: OpeningFront,
        channel: C,
    ) -> FrontReplay<C> {
        assert(!poly_vars.is_empty(), 'pcs.statement');
        let mut channel = channel;
        absorb_head(ref channel, params, poly_vars.len());
        let (zero, one) = (QM31Trait::zero(), QM31Trait::one());
        let none = array![].span();
        FrontReplay {
            channel,
            poly_vars,
            poly_roots,
            front,
            absorbed: 0,
            reduced: 0,
            aligned: true,
            longest: none,
            values: none,
            point: none,
            alpha: zero,
            power: one,
            claim: zero,
            expected: zero,
        }
    }

    fn layout(self: @FrontReplay<C>, params: @PcsParams) -> BatchLayout {
        BatchLayoutTrait::new(*self.poly_vars, *params.log_arity)
    }

    /// Stage 2 for the next polynomials, given their claims; after the last, the counts and
    /// the start of the merge.
    #[inline(never)]
    fn absorb(ref self: FrontReplay<C>, params: @PcsParams, claims: Span<Span<Claim>>) {
        let mut values: Array<QM31> = array![];
        values.append_span(self.values);
        for on in claims {
            let j = self.absorbed;
            let (root, n_vars) = (*self.poly_roots[j], *self.poly_vars[j]);
            check_poly(params, root, n_vars, *on);
            absorb_poly(ref self.channel, *params.hash, root, n_vars, *on);
            let point = *(*on)[0].point;
            let (shorter, longer) = if point.len() > self.longest.len() {
                (self.longest, point)
            } else {
                (point, self.longest)
            };
            self.longest = longer;
            let suffix = longer.slice(longer.len() - shorter.len(), shorter.len()) == shorter;
            self.aligned = self.aligned && (*on).len() == 1 && suffix;
            values.append(*(*on)[0].value);
            self.absorbed += 1;
            if self.absorbed == self.poly_vars.len() {
                self.values = values.span();
                self.merge(params);
            }
        }
        self.values = values.span();
    }

    #[inline(never)]
    fn merge(ref self: FrontReplay<C>, params: @PcsParams) {
        check_shape(params, @self.layout(params), self.aligned, self.poly_vars.len(), @self.front);
        if self.aligned {
            self.point = self.longest;
            return;
        }
        self.alpha = self.channel.draw_secure_felt();
        let mut point = array![];
        for sent in self.front.merge {
            self.channel.mix_felts(*sent);
            point.append(self.channel.draw_secure_felt());
        }
        self.point = point.span();
        self.channel.mix_felts(self.front.merged_values);
    }

    /// Stage 3 for the next polynomials (nothing to do when the claims are aligned): their
    /// Σ_k λ_jk v_jk 2^(n − n_j) into the merged claim, Σ_k λ_jk eq(z_jk, r_tail) · v_j into
    /// the merge's end.
    #[inline(never)]
    fn reduce(ref self: FrontReplay<C>, claims: Span<Span<Claim>>) {
        assert(claims.is_empty() || self.absorbed == self.poly_vars.len(), 'pcs.stage');
        let n = self.point.len();
        for on in claims {
            let j = self.reduced;
            if !self.aligned {
                let n_j = *self.poly_vars[j];
                let repeats = M31Trait::new(pow2(n - n_j));
                let tail = self.point.slice(n - n_j, n_j);
                let mut eq = QM31Trait::zero();
                for c in *on {
                    self.claim = self.claim + (*c.value * self.power).scale(repeats);
                    eq = eq + self.power * eq_eval(*c.point, tail);
                    self.power = self.power * self.alpha;
                }
                self.expected = self.expected + eq * *self.front.merged_values[j];
            }
            self.reduced += 1;
        }
    }

    /// Stage 4: the merge's end (`pcs.merge`), β, the folding sum-check (`pcs.claim`), the
    /// grinding (`pcs.pow`); the query phase.
    #[inline(never)]
    fn finish(ref self: FrontReplay<C>, params: @PcsParams) -> QueryPhase {
        assert(self.reduced == self.poly_vars.len(), 'pcs.stage');
        let front = self.front;
        let values = if self.aligned {
            self.values
        } else {
            let mut claim = self.claim;
            let mut i = 0;
            for sent in front.merge {
                claim = evaluate_round(claim, *sent, *self.point[i]);
                i += 1;
            }
            assert(claim == self.expected, 'pcs.merge');
            front.merged_values
        };
        let betas = self.channel.draw_secure_felts(self.poly_vars.len()).span();
        let layout = self.layout(params);
        let (rhos, claim, scale) = replay_fold(
            front, *params.hash, @layout, self.point, values, betas, ref self.channel,
        );
        self.channel.mix_felts(array![front.final_value].span());
        assert(claim == scale * front.final_value, 'pcs.claim');
        assert(self.channel.verify_pow_nonce(*params.pow_bits, front.pow_nonce), 'pcs.pow');
        self.channel.mix_u64(front.pow_nonce);
        QueryPhase {
            hash: *params.hash,
            poly_vars: self.poly_vars,
            poly_roots: self.poly_roots,
            layer_roots: front.layer_roots,
            betas,
            rhos,
            final_value: front.final_value,
            query_seed: PcsChannel::query_seed(@self.channel),
            next_group: 0,
            next_tree: 0,
            pending: 0,
            partial: array![].span(),
        }
    }
}

/// Python `_check_poly`: the root a digest of the hash (`merkle.digest`), the size openable
/// (`pcs.size`), claims present and of the size (`pcs.claim_shape`).
fn check_poly(params: @PcsParams, root: u256, n_vars: u32, claims: Span<Claim>) {
    assert(*params.hash != HASH_POSEIDON || root < STARK_PRIME, 'merkle.digest');
    assert(n_vars <= *params.max_n_vars, 'pcs.size');
    assert(!claims.is_empty(), 'pcs.claim_shape');
    for claim in claims {
        assert((*claim.point).len() == n_vars, 'pcs.claim_shape');
    }
}

/// Python `check_shape` for the front: the counts of rounds, merged values and layer roots,
/// and the layer roots being digests.
fn check_shape(
    params: @PcsParams, layout: @BatchLayout, aligned: bool, n_polys: u32, front: @OpeningFront,
) {
    let n = *layout.n_vars;
    check_rounds(*front.merge, if aligned {
        0
    } else {
        n
    });
    let merged = if aligned {
        0
    } else {
        n_polys
    };
    assert((*front.merged_values).len() == merged, 'pcs.merge_count');
    check_rounds(*front.fold, n);
    assert((*front.layer_roots).len() == (*layout.groups).len() - 1, 'pcs.layer_count');
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
