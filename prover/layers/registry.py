"""Every layer kind the walk can prove, by name (the `kind` of a proof file)."""

from __future__ import annotations

from cairn.prover.layers.add import model as add
from cairn.prover.layers.add.proof import AddProof
from cairn.prover.layers.add.prover import prove_add
from cairn.prover.layers.add.verifier import verify_add
from cairn.prover.layers.attn import model as attn
from cairn.prover.layers.attn.proof import AttnProof
from cairn.prover.layers.attn.prover import advise_attn, prove_attn
from cairn.prover.layers.attn.verifier import verify_attn
from cairn.prover.layers.embed import model as embed
from cairn.prover.layers.embed.proof import EmbedProof
from cairn.prover.layers.embed.prover import prove_embed
from cairn.prover.layers.embed.verifier import verify_embed
from cairn.prover.layers.gelu import model as gelu
from cairn.prover.layers.gelu import soundness as gelu_soundness
from cairn.prover.layers.gelu.proof import GeluProof
from cairn.prover.layers.gelu.prover import advise_gelu, prove_gelu
from cairn.prover.layers.gelu.verifier import verify_gelu
from cairn.prover.layers.kvcache import model as kvcache
from cairn.prover.layers.kvcache.proof import DecodeProof
from cairn.prover.layers.kvcache.prover import prove_decode
from cairn.prover.layers.kvcache.verifier import verify_decode
from cairn.prover.layers.layernorm import model as layernorm
from cairn.prover.layers.layernorm import soundness as layernorm_soundness
from cairn.prover.layers.layernorm.proof import LayerNormProof
from cairn.prover.layers.layernorm.prover import advise_layernorm, prove_layernorm
from cairn.prover.layers.layernorm.verifier import verify_layernorm
from cairn.prover.layers.linear import model as linear
from cairn.prover.layers.linear.proof import ProjectionProof
from cairn.prover.layers.linear.prover import prove_linear
from cairn.prover.layers.linear.verifier import verify_linear
from cairn.prover.layers.matmul import model as matmul
from cairn.prover.layers.matmul.prover import prove_matmul
from cairn.prover.layers.matmul.verifier import verify_matmul
from cairn.prover.layers.mha import model as mha
from cairn.prover.layers.mha.proof import MhaProof
from cairn.prover.layers.mha.prover import prove_mha
from cairn.prover.layers.mha.verifier import verify_mha
from cairn.prover.layers.pool import model as pool
from cairn.prover.layers.pool.proof import PoolProof
from cairn.prover.layers.pool.prover import prove_pool
from cairn.prover.layers.pool.verifier import verify_pool
from cairn.prover.layers.posenc import model as posenc
from cairn.prover.layers.posenc.proof import PosencProof
from cairn.prover.layers.posenc.prover import prove_posenc
from cairn.prover.layers.posenc.verifier import verify_posenc
from cairn.prover.layers.qkv import model as qkv
from cairn.prover.layers.qkv.prover import prove_qkv
from cairn.prover.layers.qkv.verifier import verify_qkv
from cairn.prover.layers.range import model as range_check
from cairn.prover.layers.range.proof import RangeProof
from cairn.prover.layers.range.prover import advise_range, prove_range
from cairn.prover.layers.range.verifier import verify_range
from cairn.prover.layers.requant import model as requant
from cairn.prover.layers.requant import soundness as requant_soundness
from cairn.prover.layers.requant.proof import RequantProof
from cairn.prover.layers.requant.prover import advise_requant, prove_requant
from cairn.prover.layers.requant.verifier import verify_requant
from cairn.prover.softmax import soundness as attn_soundness
from cairn.prover.walk.layer import LayerSpec

LAYERS: dict[str, LayerSpec] = {
    spec.kind: spec
    for spec in (
        LayerSpec(
            matmul.KIND,
            ProjectionProof,
            matmul.check,
            matmul.RELATIONS,
            prove_matmul,
            verify_matmul,
            dim_names=matmul.DIM_NAMES,
            inputs=(matmul.MATMUL.input,),
            outputs=matmul.MATMUL.outputs,
            has_weights=True,
        ),
        LayerSpec(
            posenc.KIND,
            PosencProof,
            posenc.check,
            posenc.RELATIONS,
            prove_posenc,
            verify_posenc,
            dim_names=posenc.DIM_NAMES,
            inputs=("x",),
            outputs=("o",),
            has_weights=True,
            committable_reads=posenc.COMMITTABLE_READS,
        ),
        LayerSpec(
            linear.KIND,
            ProjectionProof,
            linear.check,
            linear.RELATIONS,
            prove_linear,
            verify_linear,
            dim_names=linear.DIM_NAMES,
            inputs=(linear.LINEAR.input,),
            outputs=linear.LINEAR.outputs,
            has_weights=True,
        ),
        LayerSpec(
            qkv.KIND,
            ProjectionProof,
            qkv.check,
            qkv.RELATIONS,
            prove_qkv,
            verify_qkv,
            dim_names=qkv.DIM_NAMES,
            inputs=(qkv.QKV.input,),
            outputs=qkv.QKV.outputs,
            has_weights=True,
        ),
        LayerSpec(
            kvcache.KIND,
            DecodeProof,
            kvcache.check,
            kvcache.RELATIONS,
            prove_decode,
            verify_decode,
            dim_names=kvcache.DIM_NAMES,
            inputs=("k0", "v0", "x"),
            outputs=("k", "q", "v"),
            has_weights=True,
            committable_reads=kvcache.COMMITTABLE_READS,
        ),
        LayerSpec(
            mha.KIND,
            MhaProof,
            mha.check,
            mha.RELATIONS,
            prove_mha,
            verify_mha,
            dim_names=mha.DIM_NAMES,
            inputs=("a", "k", "q", "v"),
            outputs=("o", "s_m"),
        ),
        LayerSpec(
            attn.KIND,
            AttnProof,
            attn.check,
            attn.RELATIONS,
            prove_attn,
            verify_attn,
            advise_attn,
            dim_names=attn.DIM_NAMES,
            inputs=("k", "q", "v"),
            outputs=("o",),
            bounded=attn.BOUNDED,
            error_terms=attn.error_terms,
            tables=attn.tables,
            opening_claims=attn_soundness.N_OPENING_CLAIMS,
        ),
        LayerSpec(
            requant.KIND,
            RequantProof,
            requant.check,
            requant.RELATIONS,
            prove_requant,
            verify_requant,
            advise_requant,
            dim_names=requant.DIM_NAMES,
            inputs=("x",),
            outputs=("y",),
            bounded=requant.BOUNDED,
            error_terms=requant.error_terms,
            opening_claims=requant_soundness.N_OPENING_CLAIMS,
        ),
        LayerSpec(
            gelu.KIND,
            GeluProof,
            gelu.check,
            gelu.RELATIONS,
            prove_gelu,
            verify_gelu,
            advise_gelu,
            dim_names=gelu.DIM_NAMES,
            inputs=("x",),
            outputs=("y",),
            error_terms=gelu.error_terms,
            tables=gelu.tables,
            opening_claims=gelu_soundness.N_OPENING_CLAIMS,
        ),
        LayerSpec(
            add.KIND,
            AddProof,
            add.check,
            add.RELATIONS,
            prove_add,
            verify_add,
            dim_names=add.DIM_NAMES,
            inputs=("a", "b"),
            outputs=("y",),
        ),
        LayerSpec(
            embed.KIND,
            EmbedProof,
            embed.check,
            embed.RELATIONS,
            prove_embed,
            verify_embed,
            dim_names=embed.DIM_NAMES,
            inputs=(),
            outputs=("y",),
            has_weights=True,
        ),
        LayerSpec(
            pool.KIND,
            PoolProof,
            pool.check,
            pool.RELATIONS,
            prove_pool,
            verify_pool,
            dim_names=pool.DIM_NAMES,
            inputs=("x",),
            outputs=("y",),
        ),
        LayerSpec(
            layernorm.KIND,
            LayerNormProof,
            layernorm.check,
            layernorm.RELATIONS,
            prove_layernorm,
            verify_layernorm,
            advise_layernorm,
            dim_names=layernorm.DIM_NAMES,
            inputs=("h",),
            outputs=("s1", "s2", "y"),
            has_weights=True,
            reads=layernorm.READS,
            error_terms=layernorm.error_terms,
            opening_claims=layernorm_soundness.N_OPENING_CLAIMS,
        ),
        LayerSpec(
            range_check.KIND,
            RangeProof,
            range_check.check,
            range_check.RELATIONS,
            prove_range,
            verify_range,
            advise_range,
            dim_names=range_check.DIM_NAMES,
            outputs=range_check.SUMS,
            has_weights=True,
            reads=range_check.SUMS,
            error_terms=range_check.error_terms,
            opening_claims=range_check.N_OPENING_CLAIMS,
        ),
    )
}
