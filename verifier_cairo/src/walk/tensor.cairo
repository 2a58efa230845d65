//! A walk statement's public tensors once read (mirror of the tensor half of
//! serializer/serde.py's decoder and of prover/mle.py's `evaluate_tensor`): words checked as
//! calldata, values canonical M31 in felts, row-major, as the MLE evaluation multiplies them.

use crate::calldata::unpack_words;
use crate::fields::qm31::{QM31, QM31Trait};
use crate::mle::{eq_table, evaluate_matrix, log2_padded};
use super::proof::{Named, Tensor};

const M31_PER_WORD: u64 = 8;
/// (p − 1)/2: values above it are negative.
const HALF: u32 = 0x3fffffff;
const P: u32 = 0x7fffffff;

/// A tensor of the statement: public (its words and values), committed (its shape and
/// commitment only; no words, no values), or — in a model walk — hidden (its shape, and what
/// its producer's relations bound it by: docs/model-walk.md).
#[derive(Copy, Drop, Serde)]
pub struct PublicTensor {
    pub shape: Span<u32>,
    /// As the calldata carries them and the transcript absorbs them.
    pub words: Span<felt252>,
    pub values: Span<felt252>,
    pub commitment: Option<TensorCommitment>,
    pub known: Known,
}

/// What a statement's checks know of a tensor's values (Python `Statement.known` and the
/// worst case of prover/graph/views.py): all of them; in a model walk, a bound on every
/// entry (its producer's checked relation), or a committed weight's declared range; or
/// nothing (committed, or hidden with no bound: the relations reading it hold mod p only).
#[derive(Copy, Drop, Serde, PartialEq, Debug)]
pub enum Known {
    Values,
    AtMost: Bound,
    Declared: DeclaredRange,
    Nothing,
}

/// A hidden tensor's bound (Python `views.Bound`): every |x| ≤ `max` and, when its producer
/// gives one (a LayerNorm output), every row's Σx² ≤ `row_sq`.
#[derive(Copy, Drop, Serde, PartialEq, Debug)]
pub struct Bound {
    pub max: u128,
    pub row_sq: Option<u128>,
}

/// A bound on every entry alone.
pub fn at_most(max: Option<u128>) -> Option<Bound> {
    match max {
        Some(max) => Some(Bound { max, row_sq: None }),
        None => None,
    }
}

/// A declared weight as the checks read it (Python `WeightRange.worst`): every |w| ≤
/// `magnitude`, and every column's Σ|w| (a vector's: its one sum) ≤ `col_abs` — the declared
/// largest column sum when summed, else the rows times the magnitude, as the filled tensor sums.
#[derive(Copy, Drop, Serde, PartialEq, Debug)]
pub struct DeclaredRange {
    pub magnitude: u128,
    pub col_abs: u128,
}

#[generate_trait]
pub impl PublicTensorImpl of PublicTensorTrait {
    /// Whether the relations reading the tensor are checked (Python `Statement.known`).
    fn known(self: @PublicTensor) -> bool {
        *self.known != Known::Nothing
    }

    /// max |x| of the tensor as the checks read it: a hidden tensor at its bound, one known by
    /// nothing as 0 (Python reads its worst case as 0; the relations on it are skipped).
    fn max_magnitude(self: @PublicTensor) -> u128 {
        match *self.known {
            Known::Values => crate::ranges::max_magnitude(*self.values),
            Known::AtMost(bound) => bound.max,
            Known::Declared(range) => range.magnitude,
            Known::Nothing => 0,
        }
    }
}

/// A committed tensor's commitment: hash tag, root (a digest as a u256) and size.
#[derive(Copy, Drop, Serde)]
pub struct TensorCommitment {
    pub hash: felt252,
    pub root: u256,
    pub n_vars: u32,
}

/// Public tensors by name, names strictly increasing (checked by `read_tensors`).
#[derive(Copy, Drop, Serde)]
pub struct Tensors {
    pub names: Span<felt252>,
    pub tensors: Span<PublicTensor>,
}

#[generate_trait]
pub impl TensorsImpl of TensorsTrait {
    /// The tensor named `name`; `statement.shape` if there is none.
    fn get(self: @Tensors, name: felt252) -> PublicTensor {
        match self.find(name) {
            Some(t) => t,
            None => core::panic_with_felt252('statement.shape'),
        }
    }

    /// Every tensor's commitment, in name order (a group of commitments only: the witness).
    fn commitments(self: @Tensors) -> Span<TensorCommitment> {
        let mut out = array![];
        for t in *self.tensors {
            out.append((*t.commitment).unwrap());
        }
        out.span()
    }

    /// The tensor named `name`, if there is one.
    #[inline(never)]
    fn find(self: @Tensors, name: felt252) -> Option<PublicTensor> {
        let mut i = 0;
        for n in *self.names {
            if *n == name {
                return Some(*(*self.tensors)[i]);
            }
            i += 1;
        }
        None
    }
}

/// Checks every tensor's words (`calldata.length`, then per word `calldata.marker` and
/// `calldata.limb`) and unpacks them.
pub fn read_tensors(tensors: @Array<Named<Tensor>>) -> Tensors {
    let mut names = array![];
    let mut read = array![];
    for entry in tensors.span() {
        names.append(*entry.name);
        read.append(read_tensor(entry.value));
    }
    Tensors { names: names.span(), tensors: read.span() }
}

pub fn read_tensor(t: @Tensor) -> PublicTensor {
    let words = t.words.span();
    // The size, stopped as soon as it exceeds what the words can hold (a shape of any rank
    // and dims cannot overflow it).
    let most: u128 = M31_PER_WORD.into() * words.len().into();
    let mut count: u128 = 1;
    for d in t.shape.span() {
        if count <= most {
            count *= (*d).into();
        }
    }
    let expected = (count + M31_PER_WORD.into() - 1) / M31_PER_WORD.into();
    assert(count <= most && words.len().into() == expected, 'calldata.length');
    PublicTensor {
        shape: t.shape.span(),
        words,
        values: unpack_words(words, count.try_into().unwrap()),
        commitment: None,
        known: Known::Values,
    }
}

/// The number of MLE variables of a tensor of this (unpadded) shape.
pub fn tensor_vars(shape: Span<u32>) -> u32 {
    let mut n = 0;
    for d in shape {
        n += log2_padded(*d);
    }
    n
}

/// The MLE of the tensor, zero-padded per dimension, at `point` (MSB-first): the leading
/// dimensions' eq tables give each row its weight, the last dimension's the columns'.
pub fn evaluate_tensor(t: @PublicTensor, point: Span<QM31>) -> QM31 {
    let shape = *t.shape;
    let rank = shape.len();
    let mut rows = array![QM31Trait::one()].span();
    let mut offset = 0;
    for d in shape.slice(0, rank - 1) {
        let vars = log2_padded(*d);
        let table = eq_table(point.slice(offset, vars));
        offset += vars;
        let mut next = array![];
        for w in rows {
            for e in table.slice(0, *d) {
                next.append(*w * *e);
            }
        }
        rows = next.span();
    }
    let cols = *shape[rank - 1];
    let col_table = eq_table(point.slice(offset, point.len() - offset));
    evaluate_matrix(*t.values, cols, rows, col_table)
}

/// A canonical value read as a signed integer (x > (p−1)/2 means x − p).
pub fn signed(x: felt252) -> i64 {
    let v: u32 = x.try_into().unwrap();
    if v > HALF {
        v.into() - P.into()
    } else {
        v.into()
    }
}

/// |x| of a canonical value read as a signed integer.
pub fn magnitude(x: felt252) -> u32 {
    let v: u32 = x.try_into().unwrap();
    if v > HALF {
        P - v
    } else {
        v
    }
}
