//! Felts a session keeps in the contract's storage between its transactions, by (session,
//! what): a model walk's statement and its checks, which would otherwise travel in every
//! transaction's calldata (docs/cairo-verifier.md, "Sessions"). The length is stored at the
//! address the Poseidon hash of (domain, session, what) gives, the felts in chunks of 256, chunk
//! c at the 256 addresses from the hash of (domain, session, what, c): one hash per chunk.

use core::poseidon::poseidon_hash_span;
use starknet::SyscallResultTrait;
use starknet::storage_access::{
    StorageBaseAddress, storage_address_from_base, storage_address_from_base_and_offset,
    storage_base_address_from_felt252,
};
use starknet::syscalls::{storage_read_syscall, storage_write_syscall};

const DOMAIN: felt252 = 'cairn.session_felts';
const CHUNK: u32 = 256;

fn base(key: Span<felt252>) -> StorageBaseAddress {
    storage_base_address_from_felt252(poseidon_hash_span(key))
}

fn chunk(session: felt252, what: felt252, index: u32) -> StorageBaseAddress {
    base(array![DOMAIN, session, what, (index / CHUNK).into()].span())
}

/// Stores `felts` as session `session`'s `what`, replacing what was there.
pub fn write_felts(session: felt252, what: felt252, felts: Span<felt252>) {
    let length = storage_address_from_base(base(array![DOMAIN, session, what].span()));
    storage_write_syscall(0, length, felts.len().into()).unwrap_syscall();
    let mut at = chunk(session, what, 0);
    let mut i: u32 = 0;
    for f in felts {
        if i % CHUNK == 0 {
            at = chunk(session, what, i);
        }
        let offset: u8 = (i % CHUNK).try_into().unwrap();
        storage_write_syscall(0, storage_address_from_base_and_offset(at, offset), *f)
            .unwrap_syscall();
        i += 1;
    }
}

/// Session `session`'s `what` as `write_felts` last stored it (empty if never).
pub fn read_felts(session: felt252, what: felt252) -> Span<felt252> {
    let length = storage_address_from_base(base(array![DOMAIN, session, what].span()));
    let n: u32 = storage_read_syscall(0, length).unwrap_syscall().try_into().unwrap();
    let mut felts = array![];
    let mut at = chunk(session, what, 0);
    for i in 0..n {
        if i % CHUNK == 0 {
            at = chunk(session, what, i);
        }
        let offset: u8 = (i % CHUNK).try_into().unwrap();
        felts.append(storage_read_syscall(0, storage_address_from_base_and_offset(at, offset)).unwrap_syscall());
    }
    felts.span()
}
