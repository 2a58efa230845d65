use crate::blake2s::{blake2s, blake2s_pair};
use super::vectors::{blake2s_cases, blake2s_node_cases};

#[test]
fn blake2s_matches_hashlib() {
    for case in blake2s_cases() {
        assert_eq!(blake2s(case.words), case.digest);
    }
}

#[test]
fn blake2s_pair_matches_hashlib() {
    for (left, right, digest) in blake2s_node_cases() {
        assert_eq!(blake2s_pair(left, right), digest);
        let mut words = array![];
        words.append_span(left.span());
        words.append_span(right.span());
        assert_eq!(blake2s(words.span()), digest);
    }
}
