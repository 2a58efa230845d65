//! Many columns committed as a few polynomials (mirror of prover/pcs/stack.py; docs/pcs.md,
//! "Stacked columns"). Columns go, largest first (ties by name), into the first stack with
//! room (first-fit decreasing), each at an offset aligned to its own size; a stack holds at
//! most 2^max_vars values. Column c of 2^n_c values at offset o_c of its stack is the
//! restriction of the stack's MLE to the prefix bits(o_c >> n_c), so a claim c~(π) = v is the
//! claim stack~(bits(o_c >> n_c) ‖ π) = v. The layout is a function of the column sizes
//! alone: no offset is ever read from a proof.
//!
//! Names are short strings ordered as strings (`name_key`), as Python orders its `str` keys;
//! a layout's column names are distinct (Python's are a mapping's keys).

use crate::fields::qm31::QM31;
use crate::mle::hypercube_point;
use crate::pcs::queries::pow2;
use crate::walk::layer::ClaimsOn;
use crate::merkle::hashers::{HASH_BLAKE2S, HASH_POSEIDON, STARK_PRIME};
use crate::pcs::params::witness_params;
use crate::walk::tensor::{TensorCommitment, Tensors};
use super::proof::Claim;

/// Where each column sits, in placement order (largest first, ties by name: Python's
/// `places`): its name, its variables, its stack and its offset there; and each stack's
/// variables (its filled size rounded up to a power of two).
#[derive(Copy, Drop, PartialEq, Debug)]
pub struct StackLayout {
    pub names: Span<felt252>,
    pub sizes: Span<u32>,
    pub stacks: Span<u32>,
    pub offsets: Span<u32>,
    pub stack_vars: Span<u32>,
}

#[generate_trait]
pub impl StackLayoutImpl of StackLayoutTrait {
    /// First-fit decreasing over the columns `names` of 2^`sizes[i]` values, stacks of at most
    /// 2^max_vars values (max_vars < 32); None when a column is larger than a stack (Python
    /// raises ValueError). Offsets stay multiples of their column's size because the sizes
    /// placed into a stack only decrease and are all powers of two.
    fn of_columns(names: Span<felt252>, sizes: Span<u32>, max_vars: u32) -> Option<StackLayout> {
        for n in sizes {
            if *n > max_vars {
                return None;
            }
        }
        let cap: u64 = pow2(max_vars).into();
        let (mut placed_names, mut placed_sizes) = (array![], array![]);
        let (mut stacks, mut offsets) = (array![], array![]);
        let mut fill: Span<u64> = array![].span();
        for i in placement_order(names, sizes) {
            let n = *sizes[*i];
            let size: u64 = pow2(n).into();
            let mut stack = 0;
            while stack < fill.len() && *fill[stack] + size > cap {
                stack += 1;
            }
            let mut next = array![];
            next.append_span(fill);
            if stack == fill.len() {
                next.append(0);
            }
            let offset = *next[stack];
            let mut updated = array![];
            updated.append_span(next.span().slice(0, stack));
            updated.append(offset + size);
            updated.append_span(next.span().slice(stack + 1, next.len() - stack - 1));
            fill = updated.span();
            placed_names.append(*names[*i]);
            placed_sizes.append(n);
            stacks.append(stack);
            offsets.append(offset.try_into().unwrap());
        }
        let mut stack_vars = array![];
        for f in fill {
            stack_vars.append(log2_ceil(*f));
        }
        Some(
            StackLayout {
                names: placed_names.span(),
                sizes: placed_sizes.span(),
                stacks: stacks.span(),
                offsets: offsets.span(),
                stack_vars: stack_vars.span(),
            },
        )
    }

    /// Where the column `name` is in `names`, `sizes`, `stacks` and `offsets`.
    fn index(self: @StackLayout, name: felt252) -> u32 {
        let mut i = 0;
        for n in *self.names {
            if *n == name {
                break;
            }
            i += 1;
        }
        assert(i < self.names.len(), 'stack.column');
        i
    }

    /// The point of column `name`'s stack at which it equals the column's MLE at `point`
    /// (`point` has the column's variables): the column's offset bits, then `point`.
    fn point(self: @StackLayout, name: felt252, point: Span<QM31>) -> Span<QM31> {
        let i = self.index(name);
        let n = *(*self.sizes)[i];
        let stack_n = *(*self.stack_vars)[*(*self.stacks)[i]];
        let mut out = array![];
        out.append_span(hypercube_point(*(*self.offsets)[i] / pow2(n), stack_n - n));
        out.append_span(point);
        out.span()
    }

    /// Claims on columns as claims on each stack, in stack order; within a stack, the
    /// columns in name order and each column's claims in their order.
    fn claims(self: @StackLayout, claims: Span<ClaimsOn>) -> Span<Span<Claim>> {
        let mut names = array![];
        for c in claims {
            names.append(*c.name);
        }
        let order = name_order(names.span());
        let mut out = array![];
        for stack in 0..self.stack_vars.len() {
            let mut on_stack = array![];
            for i in order {
                let on = *claims[*i];
                if *(*self.stacks)[self.index(on.name)] != stack {
                    continue;
                }
                for c in on.claims {
                    let point = self.point(on.name, *c.point);
                    on_stack.append(Claim { point, value: *c.value });
                }
            }
            out.append(on_stack.span());
        }
        out.span()
    }
}

/// The statement's names of a layout's stack commitments: `prefix.0`, `prefix.1`, …
pub fn stack_names(prefix: felt252, layout: @StackLayout) -> Span<felt252> {
    let dotted = with_suffix(prefix, '.', 1);
    let mut names = array![];
    for i in 0..layout.stack_vars.len() {
        names.append(with_decimal(dotted, i));
    }
    names.span()
}

/// Claims on columns as claims on the stacks, by the statement's names of the stacks (in
/// stack order, as Python's dict).
pub fn stack_claims(
    prefix: felt252, layout: @StackLayout, claims: Span<ClaimsOn>,
) -> Span<ClaimsOn> {
    let names = stack_names(prefix, layout);
    let mut out = array![];
    let mut i = 0;
    for on_stack in layout.claims(claims) {
        out.append(ClaimsOn { name: *names[i], claims: *on_stack });
        i += 1;
    }
    out.span()
}

/// `<prefix>.commitment` unless the witness — the statement's commitments `commitments` named
/// `names` (distinct, as the calldata reader checks them; each hash as its tag) — is exactly
/// the layout's stacks, commitments of their sizes with one hash a witness opening has
/// (`witness_params`; the first stack's). Returns them in stack order.
pub fn check_stacks(
    prefix: felt252,
    layout: @StackLayout,
    names: Span<felt252>,
    commitments: Span<TensorCommitment>,
) -> Span<TensorCommitment> {
    let reason = with_suffix(prefix, '.commitment', 11);
    let expected = stack_names(prefix, layout);
    // The same set: as many names, each expected one present.
    assert(names.len() == expected.len(), reason);
    let mut found = array![];
    for name in expected {
        let mut j = 0;
        while j < names.len() && *names[j] != *name {
            j += 1;
        }
        assert(j < names.len(), reason);
        found.append(j);
    }
    let mut out = array![];
    let mut i = 0;
    let mut hash = 0;
    for j in found {
        let c = *commitments[j];
        if i == 0 {
            hash = c.hash;
            assert(witness_params(hash).is_some(), reason);
        }
        assert(c.hash == hash && c.n_vars == *(*layout.stack_vars)[i], reason);
        // A Poseidon252 root must be a felt (Python's `is_digest`).
        assert(hash != HASH_POSEIDON || c.root < STARK_PRIME, reason);
        out.append(c);
        i += 1;
    }
    out.span()
}

/// Python `witness_hash`: the hash a layer's witness is committed with (one, `check_stacks`),
/// which its fixed tables' pinned commitments use too; Blake2s's (Python
/// `DEFAULT_WITNESS_HASH`) while nothing is committed.
pub fn witness_hash(witness: @Tensors) -> felt252 {
    match witness.tensors.get(0) {
        Some(t) => (*t.unbox().commitment).unwrap().hash,
        None => HASH_BLAKE2S,
    }
}

/// The short string `prefix` followed by the `len` characters of `suffix`.
pub fn with_suffix(prefix: felt252, suffix: felt252, len: u32) -> felt252 {
    let mut shifted = prefix;
    for _ in 0..len {
        shifted *= 256;
    }
    shifted + suffix
}

/// The short string `prefix` followed by v in decimal (Python f"{prefix}{v}").
pub fn with_decimal(prefix: felt252, v: u32) -> felt252 {
    let mut digits = array![];
    let mut rest = v;
    loop {
        digits.append(rest % 10);
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut out = prefix;
    let mut digits = digits.span();
    while let Some(d) = digits.pop_back() {
        out = out * 256 + '0' + (*d).into();
    }
    out
}

/// The indices of the columns in placement order: size descending, then name (as strings).
fn placement_order(names: Span<felt252>, sizes: Span<u32>) -> Span<u32> {
    sort_indices(sizes, names)
}

/// The indices of `names` in name order (as strings).
fn name_order(names: Span<felt252>) -> Span<u32> {
    let mut zeros = array![];
    for _ in names {
        zeros.append(0);
    }
    sort_indices(zeros.span(), names)
}

/// The indices 0, …, n − 1 ordered by `primary` descending (values < 32), then `names` as
/// strings (distinct names: a strict total order): one u256 key per index, (31 − primary)
/// above the name's 248 bits (`name_key`), each index inserted after the smaller keys.
fn sort_indices(primary: Span<u32>, names: Span<felt252>) -> Span<u32> {
    let mut keys = array![];
    let mut i = 0;
    for name in names {
        let top = u256 { low: 0, high: (31 - *primary[i]).into() * TOP_BYTE };
        keys.append(top + name_key(*name));
        i += 1;
    }
    let keys = keys.span();
    let mut order: Span<u32> = array![].span();
    let mut sorted: Span<u256> = array![].span();
    let mut i = 0;
    for key in keys {
        let mut at = 0;
        for other in sorted {
            if *other > *key {
                break;
            }
            at += 1;
        }
        let (mut next_order, mut next_sorted) = (array![], array![]);
        next_order.append_span(order.slice(0, at));
        next_order.append(i);
        next_order.append_span(order.slice(at, order.len() - at));
        next_sorted.append_span(sorted.slice(0, at));
        next_sorted.append(*key);
        next_sorted.append_span(sorted.slice(at, sorted.len() - at));
        order = next_order.span();
        sorted = next_sorted.span();
        i += 1;
    }
    order
}

/// 2^248 / 2^128: a u256's high half times this is its bits from 248 on.
const TOP_BYTE: u128 = 0x1000000000000000000000000000000;

/// log2(next_pow2(x)): a stack's variables from its filled size.
fn log2_ceil(x: u64) -> u32 {
    let (mut n, mut size) = (0, 1_u64);
    while size < x {
        size *= 2;
        n += 1;
    }
    n
}

/// A short string's bytes left-aligned in 31 bytes, so names compare as strings (the order of
/// `walk::calldata::order_key`, in one product: the byte length from the u128 halves, then
/// the felt times 256^(31 − length), exact below 2^248).
pub fn name_key(name: felt252) -> u256 {
    let value: u256 = name.into();
    let len = if value.high != 0 {
        16 + byte_length(value.high)
    } else {
        byte_length(value.low)
    };
    if len >= 31 {
        return value;
    }
    (name * *POW256.span()[31 - len]).into()
}

/// The number of bytes of x (0 for 0): the least k with x < 256^k.
fn byte_length(x: u128) -> u32 {
    if x == 0 {
        return 0;
    }
    let mut len = 1;
    let mut pows = POW256_U128.span();
    while let Some(bound) = pows.pop_front() {
        if x < *bound {
            break;
        }
        len += 1;
    }
    len
}

/// 256^k for k = 1, …, 15.
const POW256_U128: [u128; 15] = [
    0x100,
    0x10000,
    0x1000000,
    0x100000000,
    0x10000000000,
    0x1000000000000,
    0x100000000000000,
    0x10000000000000000,
    0x1000000000000000000,
    0x100000000000000000000,
    0x10000000000000000000000,
    0x1000000000000000000000000,
    0x100000000000000000000000000,
    0x10000000000000000000000000000,
    0x1000000000000000000000000000000,
];

/// 256^k for k = 0, …, 31.
const POW256: [felt252; 32] = [
    0x1,
    0x100,
    0x10000,
    0x1000000,
    0x100000000,
    0x10000000000,
    0x1000000000000,
    0x100000000000000,
    0x10000000000000000,
    0x1000000000000000000,
    0x100000000000000000000,
    0x10000000000000000000000,
    0x1000000000000000000000000,
    0x100000000000000000000000000,
    0x10000000000000000000000000000,
    0x1000000000000000000000000000000,
    0x100000000000000000000000000000000,
    0x10000000000000000000000000000000000,
    0x1000000000000000000000000000000000000,
    0x100000000000000000000000000000000000000,
    0x10000000000000000000000000000000000000000,
    0x1000000000000000000000000000000000000000000,
    0x100000000000000000000000000000000000000000000,
    0x10000000000000000000000000000000000000000000000,
    0x1000000000000000000000000000000000000000000000000,
    0x100000000000000000000000000000000000000000000000000,
    0x10000000000000000000000000000000000000000000000000000,
    0x1000000000000000000000000000000000000000000000000000000,
    0x100000000000000000000000000000000000000000000000000000000,
    0x10000000000000000000000000000000000000000000000000000000000,
    0x1000000000000000000000000000000000000000000000000000000000000,
    0x100000000000000000000000000000000000000000000000000000000000000,
];
