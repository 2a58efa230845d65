//! The pinned commitments of the GELU tables (mirror of prover/layers/gelu/table.py): the
//! verifier never reads a table's root from a proof; the family with b_in = 15, b_out = 12 and
//! f_out = f_in − 3 (the widths `cairn model import` gives every FFN) has one per f_in.

use crate::merkle::hashers::{HASH_BLAKE2S, HASH_POSEIDON};
use crate::pcs::stack::with_decimal;
use crate::walk::tensor::TensorCommitment;

/// The family: b_in, b_out, and f_in − f_out (Python `IN_BITS`, `OUT_BITS`, `SCALE_DROP`).
pub const IN_BITS: u32 = 15;
pub const OUT_BITS: u32 = 12;
pub const SCALE_DROP: u32 = 3;

/// The smallest f_in with a pinned table (Python `min(PINNED_ROOTS)`).
const FIRST_F_IN: u32 = 3;

/// Python `PINNED_ROOTS[f_in][hash]`: the Merkle root of gelu_table(f_in, 15, f_in − 3, 12)
/// committed with `WITNESS_PCS[hash]`, as a u256.
fn family_root(f_in: u32, hash: felt252) -> Option<u256> {
    if f_in < FIRST_F_IN {
        return None;
    }
    let roots: Array<u256> = if hash == HASH_BLAKE2S {
        array![
            0xEBBFD6C61B324BA9CE55D959487F3AE2299DF5BEB2FF33F37C418406CA2D6687,
            0x749CB90CDE3743EA590EAE663072F3C67ADB56040A9E1E4BAD4A30088C7852D0,
            0x190B12A1A9F12E03E9D0B32D113D9BEB54C0152F66FEEDADA5910E6A93372C8A,
            0x08BD39562EE42A99C8E6E9A6055B3C29704AFF5238529A3A6ECF7FB70A15CC87,
            0xC4104D2BB16CFFFD5C9E7854F9EDDC8AFF57D552B72276C4B502FF9097D7F5EB,
            0xF74D129524460E99EF21D6331041C171D8777DC5B4953D29FA3DACADEB50F13A,
            0x04CB63A8EC13FFEB2CFC54CCE85F25E7C0C5EDE6AD3B71B9E19C5C9455D69D70,
            0x6284BA4B9E576E99E344BC0D47DB596D7C217883AE590CE3195DA185DDDF6B42,
            0x6B9893CD54ACAD4A6AA1497FE80C879D57106507D81EA79C218328B780288260,
            0x11B11A83D8E73DF207572EA40032DE1BB4449A96246B2542CA504B80FCBA4376,
            0x7CF74D552E57D69357782B9C44CAF20904820B74E15E957D057E295DD4EBCA9E,
            0x5DFFCC7E1525BC576435DF542053CBC758C357FE8AC5031C861449B3D6E3B23E,
            0x4D0C92C84EF68FF596771C8D32867F862E5EFF60EC4F2D677402D2BBB30C128E,
        ]
    } else if hash == HASH_POSEIDON {
        array![
            0x029D00AA2894F33C2856DDC4A1E477286B17B944D5A6FF092AE67B5AD6517918,
            0x02D721816B4DE9ED0A615754E479238C4405BD1F39621FA8BDB0C1D5F0C04764,
            0x04056B86B05922CCA4402BE11D6CFF4B861F51CA2A7272604A69BBB92285AC69,
            0x02D6A0D3173124E00294DD7E6D8FE53287FBE0E7903D45FA47A1B370CEDB3265,
            0x063DA06C435B286E2C8217D7C8229238B66E492C195B2E801FA07E9B7426AF3C,
            0x076112D6DA927ECFE5D261FA18D81A1D9D3D25734E52B41D24B0AC6A6CFCE32B,
            0x0630969ACF6507E2E7D78B49DA04DC256CEBAF7A1468B4AEF56CBF7B064AD8A3,
            0x0711550AE9DCA7797CBFB57E588D24B21056337C94423EAF394E8056F7130E16,
            0x03FC9FD9563827FF4867858465B131DC93440AA4305EADFBE5AD2051B663E77E,
            0x0656925991C74265253F258B47B65CE7ACD72EED9412681830FC630A1121C235,
            0x0745BFF64429F80B3F4689E7874D822AC0C1C6431889CFEA950D194865F8CE1D,
            0x05D473F5916FDFB51A407DD80B682491B9F4870FC0AF1CE83E481BC3B9ED6D05,
            0x01BFC5ABC071F52B74CC55CD6506138F202BB703238B9962B5F965F341B6AF54,
        ]
    } else {
        return None;
    };
    match roots.get(f_in - FIRST_F_IN) {
        Some(root) => Some(*root.unbox()),
        None => None,
    }
}

/// Python `pinned_root`: the table's pinned root for a witness hash, None outside the pinned
/// family.
pub fn pinned_root(f_in: u32, b_in: u32, f_out: u32, b_out: u32, hash: felt252) -> Option<u256> {
    if b_in != IN_BITS || b_out != OUT_BITS || f_in < SCALE_DROP || f_in - SCALE_DROP != f_out {
        return None;
    }
    family_root(f_in, hash)
}

/// The verifier's view of T's commitment (Python `pinned_commitment`), for parameters with a
/// pinned root (`GeluParams::problem` refuses the others first) and the layer's witness hash
/// (`check_stacks`).
pub fn pinned_commitment(
    f_in: u32, b_in: u32, f_out: u32, b_out: u32, hash: felt252,
) -> TensorCommitment {
    let root = pinned_root(f_in, b_in, f_out, b_out, hash).unwrap();
    TensorCommitment { hash, root, n_vars: b_in }
}

/// The table's name in the walk's witness opening, 'gelu.<f_in>.<b_in>.<f_out>.<b_out>'
/// (Python `table_name`).
pub fn table_name(f_in: u32, b_in: u32, f_out: u32, b_out: u32) -> felt252 {
    let name = with_decimal('gelu.', f_in);
    let name = with_decimal(name * 256 + '.', b_in);
    let name = with_decimal(name * 256 + '.', f_out);
    with_decimal(name * 256 + '.', b_out)
}
