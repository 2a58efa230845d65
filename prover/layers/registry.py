"""Every layer kind the walk can prove, by name (the `kind` of a proof file)."""

from __future__ import annotations

from cairn.prover.layers.posenc import model as posenc
from cairn.prover.layers.posenc.proof import PosencProof
from cairn.prover.layers.posenc.prover import prove_posenc
from cairn.prover.layers.posenc.verifier import verify_posenc
from cairn.prover.walk.layer import LayerSpec

LAYERS: dict[str, LayerSpec] = {
    spec.kind: spec
    for spec in (LayerSpec(posenc.KIND, PosencProof, posenc.check, prove_posenc, verify_posenc),)
}
