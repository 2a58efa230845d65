//! Reader of the PCS parts of the calldata (mirror of serializer/pcs_calldata.py;
//! docs/calldata.md, "PCS opening"): a statement, an opening's front (the transcript part) and
//! its group parts (the Merkle openings of each fold group). Counts the verifier knows in
//! advance are checked where they are read, with the verifier's check names; counts that
//! follow from the queries (opened leaves, siblings) are taken as given and checked by the
//! verifier. A digest is one felt (Poseidon) or two (Blake2s: low and high 128 bits).

use crate::calldata::{take, take_count, take_exact, take_u32_in, unpack_qm31, unpack_words};
use crate::fields::qm31::QM31;
use crate::merkle::hashers::{digest_felts, read_root};
use super::params::{PcsParams, params_for, poly_log_leaf};
use super::proof::{Claim, GroupOpenings, OpeningFront, PolyStatement, TreeOpening};
use super::queries::{BatchLayout, BatchLayoutTrait};
use super::front::ROUND_SENT;

const MAX_POLYS: u32 = 256;
const MAX_CLAIMS: u32 = 256;
const M31_PER_WORD: u32 = 8;

/// J, then per polynomial: hash tag, n_vars, root, K and K claims (n_vars + 1 QM31 each).
/// The checks of Python's `front._check_poly`, poly by poly as the felts come; the first
/// polynomial's hash is every polynomial's. Returns the contract's parameters for that hash.
pub fn read_statement(
    ref data: Span<felt252>, params: @PcsParams,
) -> (PcsParams, Span<PolyStatement>) {
    let n_polys = take_u32_in(ref data, 1, MAX_POLYS, 'pcs.statement');
    let mut statement = array![];
    let mut hash = 0;
    for j in 0..n_polys {
        let tag = take(ref data);
        if j == 0 {
            hash = tag;
        }
        assert(tag == hash && params_for(tag).is_some(), 'pcs.hash');
        let n_vars = take_u32_in(ref data, 0, *params.max_n_vars, 'pcs.size');
        let root = take_root(ref data, hash);
        let n_claims = take_u32_in(ref data, 1, MAX_CLAIMS, 'pcs.claim_shape');
        let mut claims = array![];
        for _ in 0..n_claims {
            let point = take_qm31s(ref data, n_vars);
            claims.append(Claim { point, value: unpack_qm31(take(ref data)) });
        }
        statement.append(PolyStatement { root, n_vars, claims: claims.span() });
    }
    let with_hash = PcsParams {
        hash,
        log_blowup: *params.log_blowup,
        log_arity: *params.log_arity,
        n_queries: *params.n_queries,
        pow_bits: *params.pow_bits,
        max_n_vars: *params.max_n_vars,
    };
    (with_hash, statement.span())
}

/// A hash tag (`pcs.hash` unless one the contract opens) and the root after it.
pub fn take_hash_and_root(ref data: Span<felt252>) -> (felt252, u256) {
    let hash = take(ref data);
    assert(params_for(hash).is_some(), 'pcs.hash');
    (hash, take_root(ref data, hash))
}

/// A digest of `hash` (`calldata.truncated` if cut short, `merkle.digest` if no digest's).
fn take_root(ref data: Span<felt252>, hash: felt252) -> u256 {
    let size = digest_felts(hash);
    assert(size <= data.len(), 'calldata.truncated');
    let felts = data.slice(0, size);
    data = data.slice(size, data.len() - size);
    read_root(hash, felts)
}

/// Merge rounds and merged values (none when `aligned`), fold rounds, layer roots, final
/// value, nonce: the counts of Python's `front.check_shape`.
pub fn read_front(
    ref data: Span<felt252>, hash: felt252, layout: @BatchLayout, aligned: bool, n_polys: u32,
) -> OpeningFront {
    let n = *layout.n_vars;
    let merge = take_rounds(ref data, if aligned {
        0
    } else {
        n
    });
    take_exact(ref data, if aligned {
        0
    } else {
        n_polys.into()
    }, 'pcs.merge_count');
    let merged_values = take_qm31s(ref data, if aligned {
        0
    } else {
        n_polys
    });
    let fold = take_rounds(ref data, n);
    let n_layers = (*layout.groups).len() - 1;
    take_exact(ref data, n_layers.into(), 'pcs.layer_count');
    let mut layer_roots = array![];
    for _ in 0..n_layers {
        layer_roots.append(take_root(ref data, hash));
    }
    let final_value = unpack_qm31(take(ref data));
    let pow_nonce: u64 = match take(ref data).try_into() {
        Some(nonce) => nonce,
        None => core::panic_with_felt252('pcs.pow'),
    };
    OpeningFront { merge, merged_values, fold, layer_roots: layer_roots.span(), final_value, pow_nonce }
}

/// The trees group g opens from its tree `first` on: the layer committed at its start (tree 0
/// of a group g > 0), then each polynomial entering in it, in order; all of them when `whole`,
/// else as many as the calldata holds.
fn read_group(
    ref data: Span<felt252>,
    params: @PcsParams,
    layout: @BatchLayout,
    g: u32,
    first: u32,
    whole: bool,
) -> GroupOpenings {
    let (s, e) = *(*layout.groups)[g];
    let digest = digest_felts(*params.hash);
    let layer = if g > 0 && first == 0 {
        Some(read_tree_opening(ref data, 4 * crate::pcs::queries::pow2(e - s), digest))
    } else {
        None
    };
    let mut polys = array![];
    let group_polys = layout.group_polys(g);
    let done = if g > 0 && first > 0 {
        first - 1
    } else {
        first
    };
    for j in group_polys.slice(done, group_polys.len() - done) {
        if !whole && data.is_empty() {
            break;
        }
        let n_j = *layout.n_vars - *(*layout.levels)[*j];
        let width = crate::pcs::queries::pow2(poly_log_leaf(n_j, params));
        polys.append(read_tree_opening(ref data, width, digest));
    }
    GroupOpenings { layer, polys: polys.span() }
}

/// Tree parts from tree `tree` of group `group` on: all the remaining ones when `whole` (the
/// calldata of a complete proof), else as many as the calldata holds (a session's
/// transaction), one `GroupOpenings` per group they reach; nothing may follow
/// (`calldata.extra`).
pub fn read_groups(
    ref data: Span<felt252>,
    params: @PcsParams,
    layout: @BatchLayout,
    group: u32,
    tree: u32,
    whole: bool,
) -> Span<GroupOpenings> {
    let groups = read_groups_before(ref data, params, layout, group, tree, whole);
    assert(data.is_empty(), 'calldata.extra');
    groups
}

/// As `read_groups`, where more may follow (a walk's witness opening after its committed
/// tensors' opening).
pub fn read_groups_before(
    ref data: Span<felt252>,
    params: @PcsParams,
    layout: @BatchLayout,
    group: u32,
    tree: u32,
    whole: bool,
) -> Span<GroupOpenings> {
    let mut groups = array![];
    let mut g = group;
    let mut first = tree;
    while g < (*layout.groups).len() && (whole || !data.is_empty()) {
        groups.append(read_group(ref data, params, layout, g, first, whole));
        g += 1;
        first = 0;
    }
    groups.span()
}

/// n_leaves ‖ each leaf's `width` values packed 8 per felt ‖ n_siblings ‖ their `digest`
/// felts each. All leaf words are taken before any is checked, then each leaf is unpacked in
/// order; the siblings are the Merkle verifier's to check.
fn read_tree_opening(ref data: Span<felt252>, width: u32, digest: u32) -> TreeOpening {
    let per_leaf = (width + M31_PER_WORD - 1) / M31_PER_WORD;
    let n_leaves = take_count(ref data, per_leaf);
    let mut words = array![];
    let mut values = array![];
    for _ in 0..n_leaves {
        let leaf = data.slice(0, per_leaf);
        data = data.slice(per_leaf, data.len() - per_leaf);
        values.append(unpack_words(leaf, width.into()));
        words.append(leaf);
    }
    let n_felts = take_count(ref data, digest) * digest;
    let siblings = data.slice(0, n_felts);
    data = data.slice(n_felts, data.len() - n_felts);
    TreeOpening { words: words.span(), values: values.span(), siblings }
}

/// `count ‖ count rounds of [c0, c2]`; the count must be `n_rounds`.
fn take_rounds(ref data: Span<felt252>, n_rounds: u32) -> Span<Span<QM31>> {
    take_exact(ref data, n_rounds.into(), 'pcs.round_count');
    let mut rounds = array![];
    for _ in 0..n_rounds {
        rounds.append(take_qm31s(ref data, ROUND_SENT));
    }
    rounds.span()
}

fn take_qm31s(ref data: Span<felt252>, count: u32) -> Span<QM31> {
    let mut out = array![];
    for _ in 0..count {
        out.append(unpack_qm31(take(ref data)));
    }
    out.span()
}
