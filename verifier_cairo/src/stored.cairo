//! Felts the contract keeps in storage beyond one transaction (docs/cairo-verifier.md,
//! "Sessions"): a model walk's statement, staged by the account that verifies it, and its
//! nodes' statement checks as a session's transactions make them — too large to travel in
//! every transaction's calldata. A span under key k: its length at the address the Poseidon
//! hash of (domain, k) gives, its felts in chunks of 256, chunk c at the 256 addresses from the
//! hash of (domain, k, c): one hash per chunk read or written.

use core::poseidon::poseidon_hash_span;
use starknet::SyscallResultTrait;
use starknet::storage_access::{
    StorageBaseAddress, storage_address_from_base, storage_address_from_base_and_offset,
    storage_base_address_from_felt252,
};
use starknet::syscalls::{storage_read_syscall, storage_write_syscall};

const DOMAIN: felt252 = 'cairn.stored';
const CHUNK: u32 = 256;

fn length_base(key: felt252) -> StorageBaseAddress {
    storage_base_address_from_felt252(poseidon_hash_span(array![DOMAIN, key].span()))
}

fn chunk_base(key: felt252, index: u32) -> StorageBaseAddress {
    let chunk: felt252 = (index / CHUNK).into();
    storage_base_address_from_felt252(poseidon_hash_span(array![DOMAIN, key, chunk].span()))
}

pub fn span_length(key: felt252) -> u32 {
    let felt = storage_read_syscall(0, storage_address_from_base(length_base(key)))
        .unwrap_syscall();
    felt.try_into().unwrap()
}

pub fn set_span_length(key: felt252, length: u32) {
    storage_write_syscall(0, storage_address_from_base(length_base(key)), length.into())
        .unwrap_syscall();
}

/// Writes `felts` at positions `offset`.. of the span under `key` (its length is set apart).
pub fn write_at(key: felt252, offset: u32, felts: Span<felt252>) {
    let mut base = chunk_base(key, offset);
    let mut i = offset;
    for f in felts {
        if i % CHUNK == 0 {
            base = chunk_base(key, i);
        }
        let at = storage_address_from_base_and_offset(base, (i % CHUNK).try_into().unwrap());
        storage_write_syscall(0, at, *f).unwrap_syscall();
        i += 1;
    }
}

/// Makes `felts` the span under `key`.
pub fn write_span(key: felt252, felts: Span<felt252>) {
    write_at(key, 0, felts);
    set_span_length(key, felts.len());
}

/// Appends `felts` to the span under `key`.
pub fn append(key: felt252, felts: Span<felt252>) {
    let length = span_length(key);
    write_at(key, length, felts);
    set_span_length(key, length + felts.len());
}

/// The span under `key` (empty if nothing was written).
pub fn read_span(key: felt252) -> Span<felt252> {
    let mut felts = array![];
    let mut base = chunk_base(key, 0);
    for i in 0..span_length(key) {
        if i % CHUNK == 0 {
            base = chunk_base(key, i);
        }
        let at = storage_address_from_base_and_offset(base, (i % CHUNK).try_into().unwrap());
        felts.append(storage_read_syscall(0, at).unwrap_syscall());
    }
    felts.span()
}
