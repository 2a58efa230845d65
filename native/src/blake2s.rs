//! Blake2s-256 (RFC 7693, unkeyed, 32-byte digests) of many messages of one length at once.
//!
//! A Merkle tree hashes millions of rows of one length (a leaf row, or two child digests), each
//! a block or a few. The messages go `LANES` at a time through one compression whose every
//! word is an array of `LANES` values, one per message: the same instruction stream for all,
//! which the compiler vectorizes (16 lanes fill an AVX-512 register, two AVX2 ones).

const LANES: usize = 16;
const BLOCK: usize = 64;
const DIGEST: usize = 32;

type Lanes = [u32; LANES];

const IV: [u32; 8] = [
    0x6A09_E667,
    0xBB67_AE85,
    0x3C6E_F372,
    0xA54F_F53A,
    0x510E_527F,
    0x9B05_688C,
    0x1F83_D9AB,
    0x5BE0_CD19,
];

/// The message word schedule of the ten rounds.
const SIGMA: [[usize; 16]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

#[inline(always)]
fn splat(x: u32) -> Lanes {
    [x; LANES]
}

#[inline(always)]
fn add(a: &mut Lanes, b: &Lanes) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = x.wrapping_add(*y);
    }
}

#[inline(always)]
fn xor_rotate(a: &mut Lanes, b: &Lanes, n: u32) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x ^ *y).rotate_right(n);
    }
}

/// The mixing function G on state words a, b, c, d with message words x, y.
#[inline(always)]
fn mix(v: &mut [Lanes; 16], [a, b, c, d]: [usize; 4], x: &Lanes, y: &Lanes) {
    let (mut va, mut vb, mut vc, mut vd) = (v[a], v[b], v[c], v[d]);
    add(&mut va, &vb);
    add(&mut va, x);
    xor_rotate(&mut vd, &va, 16);
    add(&mut vc, &vd);
    xor_rotate(&mut vb, &vc, 12);
    add(&mut va, &vb);
    add(&mut va, y);
    xor_rotate(&mut vd, &va, 8);
    add(&mut vc, &vd);
    xor_rotate(&mut vb, &vc, 7);
    (v[a], v[b], v[c], v[d]) = (va, vb, vc, vd);
}

/// One compression of a block per lane; `t` bytes hashed so far (this block included).
#[inline(always)]
fn compress(h: &mut [Lanes; 8], m: &[Lanes; 16], t: u64, last: bool) {
    let mut v = [splat(0); 16];
    v[..8].copy_from_slice(h);
    for (w, &iv) in v[8..].iter_mut().zip(&IV) {
        *w = splat(iv);
    }
    v[12] = splat(IV[4] ^ t as u32);
    v[13] = splat(IV[5] ^ (t >> 32) as u32);
    if last {
        v[14] = splat(!IV[6]);
    }
    for s in &SIGMA {
        mix(&mut v, [0, 4, 8, 12], &m[s[0]], &m[s[1]]);
        mix(&mut v, [1, 5, 9, 13], &m[s[2]], &m[s[3]]);
        mix(&mut v, [2, 6, 10, 14], &m[s[4]], &m[s[5]]);
        mix(&mut v, [3, 7, 11, 15], &m[s[6]], &m[s[7]]);
        mix(&mut v, [0, 5, 10, 15], &m[s[8]], &m[s[9]]);
        mix(&mut v, [1, 6, 11, 12], &m[s[10]], &m[s[11]]);
        mix(&mut v, [2, 7, 8, 13], &m[s[12]], &m[s[13]]);
        mix(&mut v, [3, 4, 9, 14], &m[s[14]], &m[s[15]]);
    }
    for (i, hi) in h.iter_mut().enumerate() {
        for k in 0..LANES {
            hi[k] ^= v[i][k] ^ v[i + 8][k];
        }
    }
}

/// Blake2s-256 of every row of `row_bytes` (≥ 1) bytes of `data`, written to `out` (32 bytes
/// per row). `data` holds whole rows.
#[inline(always)]
pub fn hash_rows(data: &[u8], row_bytes: usize, out: &mut [u8]) {
    let blocks = row_bytes.div_ceil(BLOCK);
    let rows = data.len() / row_bytes;
    for (group, digests) in out.chunks_mut(DIGEST * LANES).enumerate() {
        let first = group * LANES;
        let count = (rows - first).min(LANES);
        let mut h = [splat(0); 8];
        for (w, &iv) in h.iter_mut().zip(&IV) {
            *w = splat(iv);
        }
        h[0] = splat(IV[0] ^ 0x0101_0000 ^ DIGEST as u32);
        for b in 0..blocks {
            let (start, end) = (b * BLOCK, ((b + 1) * BLOCK).min(row_bytes));
            let mut m = [splat(0); 16];
            for lane in 0..count {
                let row = &data[(first + lane) * row_bytes..][..row_bytes];
                let mut block = [0u8; BLOCK]; // the last block is padded with zeros
                block[..end - start].copy_from_slice(&row[start..end]);
                for (w, word) in block.chunks_exact(4).enumerate() {
                    m[w][lane] = u32::from_le_bytes(word.try_into().expect("4 bytes"));
                }
            }
            compress(&mut h, &m, end as u64, b + 1 == blocks);
        }
        for (lane, digest) in digests.chunks_exact_mut(DIGEST).enumerate() {
            for (i, word) in digest.chunks_exact_mut(4).enumerate() {
                word.copy_from_slice(&h[i][lane].to_le_bytes());
            }
        }
    }
}
