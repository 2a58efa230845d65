//! What both channels share (mirror of prover/channels/base.py): the generic code — sum-checks,
//! LogUp-GKR, the PCS — is written once against this trait.

use crate::fields::m31::M31;
use crate::fields::qm31::QM31;

pub trait Channel<C, +Drop<C>> {
    /// Absorbs secure-field elements (sum-check rounds, claimed values).
    fn mix_felts(ref self: C, xs: Span<QM31>);
    fn mix_u32s(ref self: C, words: Span<u32>);
    fn mix_u64(ref self: C, value: u64);
    /// 8 uniform M31 values from one draw.
    fn draw_base_felts(ref self: C) -> [M31; 8];
    /// Uniform u32 words of one draw (the query positions).
    fn draw_u32s(ref self: C) -> Array<u32>;
    /// Whether `nonce` solves the proof-of-work puzzle at the current digest; the caller then
    /// mixes it with `mix_u64`.
    fn verify_pow_nonce(self: @C, n_bits: u32, nonce: u64) -> bool;

    fn draw_secure_felt(
        ref self: C,
    ) -> QM31 {
        let [a, b, c, d, _, _, _, _] = Self::draw_base_felts(ref self);
        QM31 { a, b, c, d }
    }

    /// Two QM31 per draw: limbs 0–3, then 4–7.
    fn draw_secure_felts(
        ref self: C, n: u32,
    ) -> Array<QM31> {
        let mut out = array![];
        while out.len() < n {
            let [l0, l1, l2, l3, l4, l5, l6, l7] = Self::draw_base_felts(ref self);
            out.append(QM31 { a: l0, b: l1, c: l2, d: l3 });
            if out.len() < n {
                out.append(QM31 { a: l4, b: l5, c: l6, d: l7 });
            }
        }
        out
    }
}
