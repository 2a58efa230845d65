use crate::fields::qm31::QM31Trait;
use crate::graph::records::{NodeClaims, NodeClaimsTrait};
use crate::pcs::proof::Claim;

fn claim(coords: Span<u32>, value: u32) -> Claim {
    let mut point = array![];
    for c in coords {
        point.append(QM31Trait::new(*c, *c + 1, 0x7ffffffe, *c * 3));
    }
    Claim { point: point.span(), value: QM31Trait::new(value, 0, 0, 1) }
}

fn same(a: Span<Span<Claim>>, b: Span<Span<Claim>>) {
    assert_eq!(a.len(), b.len());
    for i in 0..a.len() {
        assert_eq!(*a[i], *b[i]);
    }
}

/// A node's claims stored with each distinct coordinate once come back as they were: shared
/// coordinates, empty groups and entries, points of 0 to 11 coordinates (index felts full and
/// not).
#[test]
fn node_claims_round_trip() {
    let shared = array![5_u32, 6, 7, 8, 9, 10, 11, 12].span();
    let weights = array![
        array![claim(shared, 1), claim(shared.slice(2, 6), 2)].span(),
        array![].span(),
    ]
        .span();
    let own = array![
        array![claim(array![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].span(), 3)].span(),
        array![claim(array![].span(), 4), claim(array![12, 5].span(), 5)].span(),
    ]
        .span();
    let claims = NodeClaims { weights, own, tables: array![].span() };
    let mut felts = array![];
    claims.serialize(ref felts);
    // The 12 distinct coordinates stored once, the shape (weights 7 felts, own 9, tables 1),
    // then 27 indices in 4 felts: 34 felts, where the claims by Serde take 44.
    assert_eq!(*felts[0], 12);
    assert_eq!(felts.len(), 13 + 7 + 9 + 1 + 4);
    felts.append(0x1234);
    let mut data = felts.span();
    let back: NodeClaims = Serde::deserialize(ref data).unwrap();
    assert_eq!(data, array![0x1234].span());
    same(back.weights, weights);
    same(back.own, own);
    same(back.tables, array![].span());
}

/// A node's claims stored as its three parts (the weights', its own witness's, its tables')
/// come back as those groups, each with the others empty.
#[test]
fn node_claims_parts_round_trip() {
    let weights = array![array![claim(array![1, 2].span(), 1)].span()].span();
    let own = array![array![claim(array![2, 3].span(), 2)].span()].span();
    let tables = array![array![claim(array![3].span(), 3)].span()].span();
    let claims = NodeClaims { weights, own, tables };
    let mut felts = array![];
    claims.weights_part().serialize(ref felts);
    claims.own_part().serialize(ref felts);
    claims.tables_part().serialize(ref felts);
    let mut data = felts.span();
    let first: NodeClaims = Serde::deserialize(ref data).unwrap();
    let second: NodeClaims = Serde::deserialize(ref data).unwrap();
    let third: NodeClaims = Serde::deserialize(ref data).unwrap();
    assert!(data.is_empty());
    same(first.weights, weights);
    assert!(first.own.is_empty() && first.tables.is_empty());
    assert!(second.weights.is_empty() && second.tables.is_empty());
    same(second.own, own);
    assert!(third.weights.is_empty() && third.own.is_empty());
    same(third.tables, tables);
}
