use core::poseidon::poseidon_hash_span;
use crate::calldata::unpack_words;
use crate::channels::base::Channel;
use crate::channels::poseidon252::{Poseidon252Channel, Poseidon252ChannelTrait};
use crate::channels::blake2s::{Blake2sChannel, Blake2sChannelTrait};
use crate::channels::fork::{fork, join};
use super::vectors::{
    ChannelOp, ChannelScript, blake2s_channel_script, blake2s_pow_cases, fork_cases, channel_script_from_default, channel_script_from_digest,
    stwo_draw_u32s_from_default, stwo_draw_u32s_with_digest_0xdeadbeef, stwo_merkle_leaf,
    stwo_merkle_node, stwo_mix_u64_digest,
};

#[test]
fn stwo_mix_u64() {
    let mut channel: Poseidon252Channel = Default::default();
    channel.mix_u64(0x1111222233334444);
    assert_eq!(channel.digest(), stwo_mix_u64_digest());
}

#[test]
fn stwo_draw_u32s() {
    let mut channel: Poseidon252Channel = Default::default();
    assert_eq!(channel.draw_u32s().span(), stwo_draw_u32s_from_default());
    let mut channel = Poseidon252ChannelTrait::new(0xdeadbeef);
    assert_eq!(channel.draw_u32s().span(), stwo_draw_u32s_with_digest_0xdeadbeef());
}

/// STWO's Merkle hashing packs leaf values exactly as calldata matrices and `mix_m31s` do.
#[test]
fn stwo_merkle_packing() {
    let (leaf, leaf_hash) = stwo_merkle_leaf();
    assert_eq!(poseidon_hash_span(leaf), leaf_hash);
    assert_eq!(unpack_words(leaf, 2), array![0, 1].span());
    let (node, node_hash) = stwo_merkle_node();
    assert_eq!(poseidon_hash_span(node), node_hash);
    assert_eq!(unpack_words(node.slice(2, 1), 1), array![3].span());
}

fn replay(script: ChannelScript) {
    let mut channel = Poseidon252ChannelTrait::new(script.start_digest);
    for step in script.steps {
        match step.op {
            ChannelOp::MixRoot(x) => channel.mix_root(*x),
            ChannelOp::MixU64(x) => channel.mix_u64(*x),
            ChannelOp::MixFelts(xs) => channel.mix_felts(*xs),
            ChannelOp::MixM31s(words) => channel.mix_m31s(*words),
            ChannelOp::MixU32s(words) => channel.mix_u32s(*words),
            ChannelOp::DrawSecureFelt(x) => assert_eq!(channel.draw_secure_felt(), *x),
            ChannelOp::DrawSecureFelts(xs) => assert_eq!(
                channel.draw_secure_felts((*xs).len()).span(), *xs,
            ),
            ChannelOp::DrawU32s(ws) => assert_eq!(channel.draw_u32s().span(), *ws),
        }
        assert_eq!(channel.digest(), *step.digest);
    }
}

#[test]
fn python_transcript_from_default() {
    replay(channel_script_from_default());
}

#[test]
fn python_transcript_from_digest() {
    replay(channel_script_from_digest());
}

#[test]
fn python_blake2s_transcript() {
    let mut channel: Blake2sChannel = Default::default();
    for step in blake2s_channel_script().steps {
        let (op, digest) = step;
        match op {
            ChannelOp::MixU64(x) => channel.mix_u64(*x),
            ChannelOp::MixFelts(xs) => channel.mix_felts(*xs),
            ChannelOp::MixU32s(words) => channel.mix_u32s(*words),
            ChannelOp::DrawSecureFelt(x) => assert_eq!(channel.draw_secure_felt(), *x),
            ChannelOp::DrawSecureFelts(xs) => assert_eq!(
                channel.draw_secure_felts((*xs).len()).span(), *xs,
            ),
            ChannelOp::DrawU32s(ws) => assert_eq!(channel.draw_u32s().span(), *ws),
            _ => panic!("not a Blake2s operation"),
        }
        assert_eq!(channel.digest, *digest);
    }
}

#[test]
fn blake2s_pow_matches_python() {
    for case in blake2s_pow_cases() {
        let channel = Blake2sChannelTrait::new(case.digest);
        assert_eq!(channel.verify_pow_nonce(case.n_bits, case.nonce), case.valid);
    }
}

#[test]
fn fork_and_join_match_python() {
    for case in fork_cases() {
        let mut parent = Poseidon252ChannelTrait::new(case.parent);
        let mut child = fork(parent.digest(), case.tag, case.tag_len);
        assert_eq!(child.digest, case.forked);
        child.mix_felts(case.mixed);
        join(ref parent, @child.digest);
        assert_eq!(parent.digest(), case.joined);
    }
}
