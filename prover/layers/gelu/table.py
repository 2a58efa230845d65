"""The GELU table of all-MiniLM-L6-v2's integer FFN (docs/models/minilm.md, "FFN"): one
definition for the model's forward pass and for the `gelu` layer's lookup, and its pinned
commitments, which the verifiers open it against (docs/layers/gelu.md, "Pinned tables")."""

from __future__ import annotations

import functools
import math

import numpy as np

from cairn.prover.fields.m31 import embed
from cairn.prover.pcs.params import DEFAULT_WITNESS_HASH, WITNESS_PCS
from cairn.prover.pcs.proof import Commitment
from cairn.prover.pcs.prover import CommitmentData, commit

IN_BITS, OUT_BITS, SCALE_DROP = 15, 12, 3
"""The family of tables with pinned commitments: b_in = 15, b_out = 12 and f_out = f_in − 3,
the widths `cairn model import` gives every FFN (a calibrated f_in per layer)."""

PINNED_ROOTS: dict[int, dict[str, int]] = {
    3: {
        "blake2s": 0xEBBFD6C61B324BA9CE55D959487F3AE2299DF5BEB2FF33F37C418406CA2D6687,
        "poseidon": 0x029D00AA2894F33C2856DDC4A1E477286B17B944D5A6FF092AE67B5AD6517918,
    },
    4: {
        "blake2s": 0x749CB90CDE3743EA590EAE663072F3C67ADB56040A9E1E4BAD4A30088C7852D0,
        "poseidon": 0x02D721816B4DE9ED0A615754E479238C4405BD1F39621FA8BDB0C1D5F0C04764,
    },
    5: {
        "blake2s": 0x190B12A1A9F12E03E9D0B32D113D9BEB54C0152F66FEEDADA5910E6A93372C8A,
        "poseidon": 0x04056B86B05922CCA4402BE11D6CFF4B861F51CA2A7272604A69BBB92285AC69,
    },
    6: {
        "blake2s": 0x08BD39562EE42A99C8E6E9A6055B3C29704AFF5238529A3A6ECF7FB70A15CC87,
        "poseidon": 0x02D6A0D3173124E00294DD7E6D8FE53287FBE0E7903D45FA47A1B370CEDB3265,
    },
    7: {
        "blake2s": 0xC4104D2BB16CFFFD5C9E7854F9EDDC8AFF57D552B72276C4B502FF9097D7F5EB,
        "poseidon": 0x063DA06C435B286E2C8217D7C8229238B66E492C195B2E801FA07E9B7426AF3C,
    },
    8: {
        "blake2s": 0xF74D129524460E99EF21D6331041C171D8777DC5B4953D29FA3DACADEB50F13A,
        "poseidon": 0x076112D6DA927ECFE5D261FA18D81A1D9D3D25734E52B41D24B0AC6A6CFCE32B,
    },
    9: {
        "blake2s": 0x04CB63A8EC13FFEB2CFC54CCE85F25E7C0C5EDE6AD3B71B9E19C5C9455D69D70,
        "poseidon": 0x0630969ACF6507E2E7D78B49DA04DC256CEBAF7A1468B4AEF56CBF7B064AD8A3,
    },
    10: {
        "blake2s": 0x6284BA4B9E576E99E344BC0D47DB596D7C217883AE590CE3195DA185DDDF6B42,
        "poseidon": 0x0711550AE9DCA7797CBFB57E588D24B21056337C94423EAF394E8056F7130E16,
    },
    11: {
        "blake2s": 0x6B9893CD54ACAD4A6AA1497FE80C879D57106507D81EA79C218328B780288260,
        "poseidon": 0x03FC9FD9563827FF4867858465B131DC93440AA4305EADFBE5AD2051B663E77E,
    },
    12: {
        "blake2s": 0x11B11A83D8E73DF207572EA40032DE1BB4449A96246B2542CA504B80FCBA4376,
        "poseidon": 0x0656925991C74265253F258B47B65CE7ACD72EED9412681830FC630A1121C235,
    },
    13: {
        "blake2s": 0x7CF74D552E57D69357782B9C44CAF20904820B74E15E957D057E295DD4EBCA9E,
        "poseidon": 0x0745BFF64429F80B3F4689E7874D822AC0C1C6431889CFEA950D194865F8CE1D,
    },
    14: {
        "blake2s": 0x5DFFCC7E1525BC576435DF542053CBC758C357FE8AC5031C861449B3D6E3B23E,
        "poseidon": 0x05D473F5916FDFB51A407DD80B682491B9F4870FC0AF1CE83E481BC3B9ED6D05,
    },
    15: {
        "blake2s": 0x4D0C92C84EF68FF596771C8D32867F862E5EFF60EC4F2D677402D2BBB30C128E,
        "poseidon": 0x01BFC5ABC071F52B74CC55CD6506138F202BB703238B9962B5F965F341B6AF54,
    },
}
"""By f_in, then witness hash: the Merkle root of gelu_table(f_in, 15, f_in − 3, 12) committed
with `WITNESS_PCS[hash]` (as Commitment.root), a protocol constant that a test recomputes."""

Params = tuple[int, int, int, int]
"""(f_in, b_in, f_out, b_out)."""


def pinned_root(params: Params, hash_: str = DEFAULT_WITNESS_HASH) -> int | None:
    """The table's pinned root for a witness hash, or None when the parameters are outside the
    pinned family."""
    f_in, b_in, f_out, b_out = params
    if (b_in, f_out, b_out) != (IN_BITS, f_in - SCALE_DROP, OUT_BITS):
        return None
    return PINNED_ROOTS.get(f_in, {}).get(hash_)


def pinned_commitment(params: Params, hash_: str) -> Commitment:
    """The verifier's view of T's commitment: the pinned root, never one from a proof.
    Parameters with no pinned table (root 0) never reach an opening: `gelu.params` refuses
    them first; the calldata encoder only needs the table's size."""
    return Commitment(pinned_root(params, hash_) or 0, params[1], hash_)


@functools.lru_cache(maxsize=4)
def table_commitment(params: Params, hash_: str) -> CommitmentData:
    """The prover's commitment to T (message, codeword, tree), built once per parameter set and
    hash."""
    return commit(embed(gelu_table(*params)), WITNESS_PCS[hash_])[1]


def table_name(params: Params) -> str:
    """The table's name in the walk's witness opening, 'gelu.<f_in>.<b_in>.<f_out>.<b_out>':
    the parameters fix its content, so every gelu node with them leaves its claims on one
    polynomial."""
    return "gelu." + ".".join(str(v) for v in params)


@functools.lru_cache(maxsize=8)
def gelu_table(f_in: int, b_in: int, f_out: int, b_out: int) -> np.ndarray:
    """T[g + 2^(b_in−1)] = ⌊G·Φ(x) + ½⌋ for every g of b_in signed bits, where x = g·2^−f_in,
    G = x·2^f_out (so G·Φ(x) = GELU(x)·2^f_out, exact erf form), clamped to b_out signed bits.

    Bit-reproducible from float64: G and G + ½ are exact dyadic numbers and Φ(−|x|) comes from
    erfc with a few ulps of relative error. For x > 0 the value is G − δ with δ = G·Φ(−x) > 0;
    when δ < 10^−6 the rounding is decided exactly (it drops one unit iff G + ½ is an integer),
    otherwise, as for x < 0, the float64 error (< 10^−9) cannot cross an integer unless the
    value lies that close to a rounding tie, which raises instead of guessing."""
    if f_in - f_out > 18:
        raise ValueError("the GELU table needs f_out >= f_in − 18")
    g = np.arange(-(1 << (b_in - 1)), 1 << (b_in - 1), dtype=np.int64)
    x = g.astype(np.float64) * 2.0**-f_in
    big_g = x * 2.0**f_out
    tail = np.fromiter(
        (0.5 * math.erfc(abs(v) / math.sqrt(2.0)) for v in x.tolist()), np.float64, len(x)
    )
    delta = big_g * tail
    half_up = big_g + 0.5
    exact = (x > 0) & (delta < 1e-6)
    value = np.where(x > 0, half_up - delta, delta + 0.5)
    frac = value - np.floor(value)
    if np.any(~exact & (np.minimum(frac, 1 - frac) < 1e-9)):
        raise ValueError("a GELU table entry lies within 1e-9 of a rounding tie")
    rounded = np.where(exact, np.floor(half_up) - (half_up == np.floor(half_up)), np.floor(value))
    lim = (1 << (b_out - 1)) - 1
    table = np.clip(rounded, -lim, lim).astype(np.int64)
    table.flags.writeable = False  # cached: shared by every caller
    return table
