//! What a model walk's verified node leaves for the openings (`NodeClaims`), the form a
//! session keeps it in (docs/cairo-verifier.md, "Sessions") and where the witness opening's
//! polynomials' claims are found in it (`poly_claims`). A node's claims share most of
//! their points' coordinates (the challenges of its sum-checks): MiniLM's 738 claims have
//! 12,103 coordinates, 2,819 of them distinct within their node. A session's transactions
//! relay what its earlier ones verified (`Kept`, whose hash the contract stores) in their
//! calldata, or, in a session opened `staged` (a large walk), the contract stores it; either
//! way a record keeps each distinct coordinate once and every point as 16-bit indices into
//! them, eight to a felt. A node's claims are kept as three records: its weights'
//! (`weights_part`, all nodes' in one span, which the settlement reads), its own witness's and
//! its tables' (`own_part`, `tables_part`, `NodeRecord`, each under its own key when stored,
//! `record_key`, which only the witness polynomials stepped read): each transaction reads only
//! what it opens (MiniLM's settlement reading every record: 8.5·10^8 L2 gas, over a block's
//! Sierra gas).

use core::dict::{Felt252Dict, Felt252DictTrait};
use core::poseidon::poseidon_hash_span;
use crate::calldata::unpack_qm31;
use crate::fields::qm31::QM31Trait;
use crate::pcs::proof::Claim;
use crate::stored::read_span;

/// The claims a node leaves on its weights (`node.weights`' order), on its own witness
/// commitments (name order) and on its tables (its check's order).
#[derive(Copy, Drop)]
pub struct NodeClaims {
    pub weights: Span<Span<Claim>>,
    pub own: Span<Span<Claim>>,
    pub tables: Span<Span<Claim>>,
}

#[generate_trait]
pub impl NodeClaimsImpl of NodeClaimsTrait {
    /// The claims on the node's weights alone: what the settlement's transaction reads back.
    fn weights_part(self: @NodeClaims) -> NodeClaims {
        NodeClaims { weights: *self.weights, own: array![].span(), tables: array![].span() }
    }

    /// The claims on the node's own witness commitments alone.
    fn own_part(self: @NodeClaims) -> NodeClaims {
        NodeClaims { weights: array![].span(), own: *self.own, tables: array![].span() }
    }

    /// The claims on the node's tables alone.
    fn tables_part(self: @NodeClaims) -> NodeClaims {
        NodeClaims { weights: array![].span(), own: array![].span(), tables: *self.tables }
    }
}

/// A verified node's witness records as a session keeps them: the node's index, its
/// `own_part` and its `tables_part` by Serde.
#[derive(Copy, Drop, Serde)]
pub struct NodeRecord {
    pub node: u32,
    pub own: Span<felt252>,
    pub tables: Span<felt252>,
}

/// What a session's model walk keeps between transactions beside its state, from the nodes
/// verified so far: their `NodeCheck`s by Serde (node order), their `NodeClaims`' weights'
/// parts by Serde (the walk's order) and their witness records. The contract stores its
/// Poseidon hash and emits it (`SessionKept`); the next transaction's caller sends it back
/// (in a session opened `staged` the contract stores it instead, and nothing is relayed).
#[derive(Copy, Drop, Serde)]
pub struct Kept {
    pub checks: Span<felt252>,
    pub walked: Span<felt252>,
    pub witnessed: Span<NodeRecord>,
}

/// The witness opening's polynomials (Python `WitnessClaims.batch` order: the nodes' own
/// commitments, nodes in order, then from `tables_from` the fixed tables by name), their sizes
/// and roots, and where their claims are: per polynomial, per record holding some (in the
/// order the claims are joined), the node and the claims' slot in the record's group (a
/// node's own commitments, or its tables in its check's order); `hash` the one hash of them
/// all, the opening's (`witness_params`).
#[derive(Copy, Drop, Serde)]
pub struct WitnessPolys {
    pub hash: felt252,
    pub poly_vars: Span<u32>,
    pub poly_roots: Span<u256>,
    pub sources: Span<Span<(u32, u32)>>,
    pub tables_from: u32,
}

/// Where a session keeps node `node`'s own (`tables` false) or tables' record, under `base`.
pub fn record_key(base: felt252, node: u32, tables: bool) -> felt252 {
    poseidon_hash_span(array![base, node.into(), tables.into()].span())
}

/// Where the nodes' records are: held, every node's `NodeClaims` in the walk's order (last node
/// first), or a session's (`SessionRecords`).
#[derive(Copy, Drop)]
pub enum Records {
    Held: Span<NodeClaims>,
    Session: SessionRecords,
}

/// Where a session's nodes' records are: relayed by its caller (`Kept::witnessed`, every
/// node's), or in a staged session's storage under a base key (`record_key`). The main
/// contract names them so to the graph class (no `NodeClaims` crosses the call).
#[derive(Copy, Drop, Serde)]
pub enum SessionRecords {
    Kept: Span<NodeRecord>,
    Stored: felt252,
}

/// The claims on witness polynomial `j`, joined from its sources' records.
pub fn poly_claims(polys: @WitnessPolys, j: u32, records: Records) -> Span<Claim> {
    let tables = j >= *polys.tables_from;
    let mut out = array![];
    for (node, slot) in *polys.sources[j] {
        let record = match records {
            Records::Held(held) => *held[held.len() - 1 - *node],
            Records::Session(session) => {
                let mut record = match session {
                    SessionRecords::Kept(kept) => kept_record(kept, *node, tables),
                    SessionRecords::Stored(base) => read_span(record_key(base, *node, tables)),
                };
                Serde::<NodeClaims>::deserialize(ref record).unwrap()
            },
        };
        let group = if tables {
            record.tables
        } else {
            record.own
        };
        out.append_span(*group[*slot]);
    }
    out.span()
}

const INDEX_SHIFT: u128 = 0x10000;
const INDEX_DIV: NonZero<u128> = 0x10000;
const PER_FELT: u32 = 8;

/// The stored form: the distinct coordinates (packed QM31s, a span), then per group (weights,
/// own, tables) its length and per entry its claim count and per claim its point's length and
/// its value, then every coordinate's index in the order the points list them, eight 16-bit
/// indices to a felt, the first in the lowest bits.
impl NodeClaimsSerde of Serde<NodeClaims> {
    fn serialize(self: @NodeClaims, ref output: Array<felt252>) {
        let mut at: Felt252Dict<u32> = Default::default();
        let (mut coords, mut shape, mut indices) = (array![], array![], array![]);
        for group in array![*self.weights, *self.own, *self.tables].span() {
            shape.append((*group).len().into());
            for claims in *group {
                shape.append((*claims).len().into());
                for claim in *claims {
                    shape.append((*claim.point).len().into());
                    shape.append((*claim.value).pack(1));
                    for x in *claim.point {
                        let key = (*x).pack(1);
                        let mut i = at.get(key);
                        if i == 0 {
                            coords.append(key);
                            i = coords.len();
                            at.insert(key, i);
                        }
                        indices.append(i - 1);
                    }
                }
            }
        }
        assert(coords.len().into() <= INDEX_SHIFT, 'graph.shape');
        coords.span().serialize(ref output);
        output.append_span(shape.span());
        let mut indices = indices.span();
        while !indices.is_empty() {
            let n = core::cmp::min(PER_FELT, indices.len());
            // Eight 16-bit indices fill 128 bits: the word is built in felt252, which cannot
            // wrap, without u128's overflow checks.
            let mut word: felt252 = 0;
            let mut chunk = indices.slice(0, n);
            while let Some(i) = chunk.pop_back() {
                word = word * INDEX_SHIFT.into() + (*i).into();
            }
            indices = indices.slice(n, indices.len() - n);
            output.append(word);
        }
    }

    fn deserialize(ref serialized: Span<felt252>) -> Option<NodeClaims> {
        let packed: Span<felt252> = Serde::deserialize(ref serialized)?;
        let mut coords = array![];
        for key in packed {
            coords.append(unpack_qm31(*key));
        }
        // Each group as (point lengths, values) per entry, then the indices they consume.
        let mut groups = array![];
        let mut total = 0;
        for _ in 0..3_u32 {
            let mut entries = array![];
            for _ in 0..take_u32(ref serialized)? {
                let (mut lengths, mut values) = (array![], array![]);
                for _ in 0..take_u32(ref serialized)? {
                    let n = take_u32(ref serialized)?;
                    lengths.append(n);
                    values.append(unpack_qm31(*serialized.pop_front()?));
                    total += n;
                }
                entries.append((lengths.span(), values.span()));
            }
            groups.append(entries.span());
        }
        let mut indices = array![];
        while indices.len() < total {
            let mut word: u128 = (*serialized.pop_front()?).try_into()?;
            for _ in 0..PER_FELT {
                let (rest, i) = DivRem::div_rem(word, INDEX_DIV);
                indices.append(i);
                word = rest;
            }
        }
        let mut indices = indices.span();
        let mut built = array![];
        for entries in groups.span() {
            let mut group = array![];
            for (lengths, values) in *entries {
                let mut claims = array![];
                let mut k = 0;
                for n in *lengths {
                    let mut point = array![];
                    for _ in 0..*n {
                        let i: u32 = (*indices.pop_front()?).try_into()?;
                        point.append(*coords.at(i));
                    }
                    claims.append(Claim { point: point.span(), value: *values[k] });
                    k += 1;
                }
                group.append(claims.span());
            }
            built.append(group.span());
        }
        Some(NodeClaims { weights: *built[0], own: *built[1], tables: *built[2] })
    }
}

/// The claims on witness polynomials `from`.. (`count` of them), each `poly_claims`.
pub fn witness_claims(
    polys: @WitnessPolys, records: Records, from: u32, count: u32,
) -> Span<Span<Claim>> {
    let mut out = array![];
    for j in from..from + count {
        out.append(poly_claims(polys, j, records));
    }
    out.span()
}

/// Node `node`'s own (`tables` false) or tables' record among those a session keeps.
fn kept_record(kept: Span<NodeRecord>, node: u32, tables: bool) -> Span<felt252> {
    for r in kept {
        if *r.node == node {
            return if tables {
                *r.tables
            } else {
                *r.own
            };
        }
    }
    core::panic_with_felt252('graph.record')
}

fn take_u32(ref data: Span<felt252>) -> Option<u32> {
    (*data.pop_front()?).try_into()
}
