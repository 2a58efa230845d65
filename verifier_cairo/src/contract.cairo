//! The on-chain entry point: verifies proofs given as calldata (docs/calldata.md), records
//! them, and keeps the model registry (docs/registry.md): the owner registers a model's config
//! hash and weight commitments once; anyone verifies proofs, which are recorded with the model
//! they are bound to (0 = none) and a hash of their public input and output. A proof too large
//! for one transaction is verified in a session: `open_session` checks the statement and the
//! parts that follow it, each `continue_session` more parts — a model walk's nodes' statement
//! checks, its nodes and settlement, then the openings' fold groups; between transactions the
//! account that opened it, a hash of its state and, for a model walk, a hash of its checks and
//! what its verified nodes left so far (`Kept`, emitted in full) are stored (and its statement
//! if the caller staged it); the caller sends both back (docs/cairo-verifier.md, "Sessions").

use starknet::ContractAddress;

/// A registered model, as the `get_model` view returns it.
#[derive(Drop, Serde, PartialEq, Debug)]
pub struct Model {
    pub config_hash: felt252,
    pub commitments: Array<felt252>,
}

/// What the contract remembers of a verified proof: the model it is bound to and the hash of
/// its public statement (with committed weights: their roots and which weights of the model
/// they are; docs/registry.md). `kind` is never 0, so an unwritten record reads as "not verified".
#[derive(Copy, Drop, Serde, PartialEq, Debug, starknet::Store)]
pub struct ProofRecord {
    pub model_id: felt252,
    pub io_hash: felt252,
    pub kind: felt252,
}

#[starknet::interface]
pub trait ICairnVerifier<TContractState> {
    /// Verifies `proof`, records it under `poseidon_hash_span(proof)`, emits `ProofVerified`
    /// and returns that hash; an invalid proof panics with the name of the failed check.
    fn verify(ref self: TContractState, proof: Span<felt252>) -> felt252;
    /// Starts verifying a proof from its calldata up to the end of any part after its front
    /// (docs/calldata.md: a model walk's node or settlement, a tree). Returns the proof hash if
    /// that was the whole proof
    /// (recorded and emitted as by `verify`), else 0 and the session, whose id is
    /// `poseidon_hash_span(proof)`, goes on, owned by the caller: `SessionState` carries its
    /// state's hash. An open session of another account cannot be re-opened (`session.owner`).
    /// `staged`, for a model walk that goes on: its later transactions read its statement from
    /// what the caller staged (`stage`), else the session's state carries it.
    fn open_session(ref self: TContractState, proof: Span<felt252>, staged: bool) -> felt252;
    /// Checks the next parts (`parts`, whole parts in order: a model walk's nodes and
    /// settlement, then the trees, each a group's layer or its polynomials) of session
    /// `session_id`, opened by the caller, whose current state is `state` (what the last
    /// `SessionState`'s hash is of) and what it keeps `kept` (the felts of the last
    /// transaction's `SessionKept` events, in order; none if it emitted none); returns the
    /// proof hash once the last group is checked, else 0.
    fn continue_session(
        ref self: TContractState,
        session_id: felt252,
        state: Span<felt252>,
        kept: Span<felt252>,
        parts: Span<felt252>,
    ) -> felt252;
    /// Stores `felts` at positions `offset`.. of the `length` felts of a model walk's statement
    /// whose Poseidon hash is `statement_hash`, for the caller's sessions opened `staged`: their
    /// later transactions read it from there (`session.statement` unless it hashes to the
    /// session's io hash), not from their state (docs/cairo-verifier.md, "Sessions"). Nothing
    /// is checked here.
    fn stage(
        ref self: TContractState,
        statement_hash: felt252,
        length: u32,
        offset: u32,
        felts: Span<felt252>,
    );
    /// Poseidon hash of session `session_id`'s state; 0 if there is no such open session.
    fn session_state_hash(self: @TContractState, session_id: felt252) -> felt252;
    fn is_verified(self: @TContractState, proof_hash: felt252) -> bool;
    /// Panics with `registry.unknown_proof` unless `proof_hash` was verified.
    fn get_proof(self: @TContractState, proof_hash: felt252) -> ProofRecord;
    /// Whether a verified range walk certified the declaration with this key: a committed
    /// weight's bits and largest column sum (docs/registry.md, "Certified declarations").
    fn is_certified(self: @TContractState, key: felt252) -> bool;

    fn owner(self: @TContractState) -> ContractAddress;
    /// Owner only; a model id is registered once and never changes.
    fn register_model(
        ref self: TContractState,
        model_id: felt252,
        config_hash: felt252,
        commitments: Span<felt252>,
    );
    fn is_registered(self: @TContractState, model_id: felt252) -> bool;
    /// Panics with `registry.unknown_model` unless `model_id` is registered.
    fn get_model(self: @TContractState, model_id: felt252) -> Model;
}

#[starknet::contract]
pub mod CairnVerifier {
    use core::num::traits::Zero;
    use core::poseidon::{hades_permutation, poseidon_hash_span};
    use starknet::storage::{
        Map, MutableVecTrait, StoragePathEntry, StoragePointerReadAccess,
        StoragePointerWriteAccess, Vec, VecTrait,
    };
    use starknet::{ClassHash, ContractAddress, get_caller_address};
    use crate::calldata::{KIND_PCS, is_graph, is_walk, read_pcs};
    use crate::channels::poseidon252::Poseidon252Channel;
    use crate::merkle::hashers::{HASH_BLAKE2S, HASH_POSEIDON};
    use crate::pcs::params::POSEIDON_PARAMS;
    use crate::pcs::front::QueryPhase;
    use crate::pcs::verifier::verify_groups;
    use crate::channels::blake2s::Blake2sChannel;
    use crate::graph::calldata::read_witness_steps;
    use crate::graph::contract::{
        GraphOutcome, GraphPause, GraphStep, ICairnGraphVerifierDispatcherTrait,
        ICairnGraphVerifierLibraryDispatcher, Walked,
    };
    use crate::graph::records::{Kept, NodeRecord, SessionRecords, WitnessPolys, record_key};
    use crate::pcs::contract::{FrontClass, FrontClassTrait};
    use crate::pcs::front::FrontReplay;
    use crate::pcs::proof::Claim;
    use crate::stored::{append, read_span, set_span_length, write_at, write_span};
    use crate::layers::{Classes, class_of};
    use crate::graph::verifier::settled_walk;
    use crate::walk::verifier::{
        WalkOpenings, continue_openings, openings_complete, verify_fronts, verify_openings,
        witness_fork,
    };
    use crate::walk::calldata::statement_kind;
    use crate::walk::contract::{
        BindingCheck, ICairnWalkVerifierDispatcherTrait, ICairnWalkVerifierLibraryDispatcher,
    };
    use super::{Model, ProofRecord};

    /// The model id of proofs bound to no model; never registrable.
    pub const NO_MODEL: felt252 = 0;

    #[storage]
    struct Storage {
        owner: ContractAddress,
        /// The walk verifiers' classes (`walk::contract`), called by library_call: the dense
        /// kinds', the attention kinds', the encoder kinds' and range's; the lookup class the
        /// attention and encoder classes call; the model walk's class (`graph::contract`).
        dense_class: ClassHash,
        attention_class: ClassHash,
        encoder_class: ClassHash,
        range_class: ClassHash,
        lookup_class: ClassHash,
        graph_class: ClassHash,
        front_class: ClassHash,
        models: Map<felt252, ModelEntry>,
        proofs: Map<felt252, ProofRecord>,
        /// The declarations verified range walks certified, by key.
        certified: Map<felt252, bool>,
        sessions: Map<felt252, OpenSession>,
    }

    /// An open session: the account that opened it (the only one that may continue or re-open
    /// it), the Poseidon hash of its serialized `Session` and that of what it keeps (`Kept`'s
    /// felts, none when empty); all zero when none is open.
    #[derive(Copy, Drop, starknet::Store)]
    struct OpenSession {
        owner: ContractAddress,
        state_hash: felt252,
        kept_hash: felt252,
    }

    /// What a session carries between transactions (its hash is stored, the caller resends
    /// it): the record to write at the end, the running proof hash, each opening's query
    /// phase (a walk's committed tensors', then its witness opening's), while a model walk is
    /// not past its witness opening's part its `GraphWalk` by Serde and, unless the session was
    /// opened `staged`, its statement's felts (both empty otherwise), while a model walk's
    /// witness opening's front is part way its `WitnessStage` by Serde (empty otherwise), and
    /// the declarations it certifies once complete.
    #[derive(Drop, Serde)]
    struct Session {
        kind: felt252,
        model_id: felt252,
        io_hash: felt252,
        proof_hash: felt252,
        phases: Array<QueryPhase>,
        walk: Span<felt252>,
        statement: Span<felt252>,
        front: Span<felt252>,
        certified: Span<felt252>,
        staged: bool,
    }

    /// A model walk's witness opening's front part way (`pcs::front`), and its polynomials.
    #[derive(Drop, Serde)]
    struct WitnessStage {
        replay: FrontReplay<Blake2sChannel>,
        polys: WitnessPolys,
    }

    #[starknet::storage_node]
    struct ModelEntry {
        registered: bool,
        config_hash: felt252,
        commitments: Vec<felt252>,
    }

    #[event]
    #[derive(Drop, PartialEq, Debug, starknet::Event)]
    pub enum Event {
        ProofVerified: ProofVerified,
        ModelRegistered: ModelRegistered,
        SessionState: SessionState,
        SessionKept: SessionKept,
    }

    /// After a transaction that did not finish a session: the hash of the state
    /// `continue_session` takes back. The state grows with the statement (10 + Σ (13 + 4J + 2L +
    /// n) felts over the openings, and one per query block when it stops inside a group; a
    /// model walk's pending claims and statement while its nodes are verified, its witness
    /// front's stage while part way) and an
    /// event holds at most 300 data felts, so the caller rebuilds the state
    /// (Python: `cairn.deploy.sessions.session_state`) and the event carries its hash only.
    #[derive(Drop, PartialEq, Debug, starknet::Event)]
    pub struct SessionState {
        #[key]
        pub session_id: felt252,
        pub state_hash: felt252,
    }

    /// After a transaction that did not finish a model walk's session and left it something to
    /// keep: `Kept`'s felts, `KEPT_CHUNK` an event (an event holds at most 300 data felts), in
    /// order; the caller sends them back with the next transaction. Storing them instead would
    /// cost ≈ 4·10^5 L2 gas a felt; relaying them costs a calldata felt each (docs/cairo-verifier.md,
    /// "Sessions").
    #[derive(Drop, PartialEq, Debug, starknet::Event)]
    pub struct SessionKept {
        #[key]
        pub session_id: felt252,
        pub felts: Span<felt252>,
    }

    const KEPT_CHUNK: u32 = 256;

    #[derive(Drop, PartialEq, Debug, starknet::Event)]
    pub struct ProofVerified {
        #[key]
        pub model_id: felt252,
        #[key]
        pub proof_hash: felt252,
        pub io_hash: felt252,
        pub kind: felt252,
    }

    /// The commitments themselves are read with `get_model`; the event carries their hash
    /// (`poseidon_hash_span`), so its size does not grow with the model.
    #[derive(Drop, PartialEq, Debug, starknet::Event)]
    pub struct ModelRegistered {
        #[key]
        pub model_id: felt252,
        pub config_hash: felt252,
        pub commitments_hash: felt252,
    }

    /// The owner is an argument, not the caller: deployments go through the Universal
    /// Deployer, which would otherwise be the owner.
    #[constructor]
    fn constructor(
        ref self: ContractState,
        owner: ContractAddress,
        dense_class: ClassHash,
        attention_class: ClassHash,
        encoder_class: ClassHash,
        range_class: ClassHash,
        lookup_class: ClassHash,
        graph_class: ClassHash,
        front_class: ClassHash,
    ) {
        assert(owner.is_non_zero(), 'registry.zero_owner');
        self.owner.write(owner);
        self.dense_class.write(dense_class);
        self.attention_class.write(attention_class);
        self.encoder_class.write(encoder_class);
        self.range_class.write(range_class);
        self.lookup_class.write(lookup_class);
        self.graph_class.write(graph_class);
        self.front_class.write(front_class);
    }

    #[abi(embed_v0)]
    impl CairnVerifierImpl of super::ICairnVerifier<ContractState> {
        fn verify(ref self: ContractState, proof: Span<felt252>) -> felt252 {
            if is_walk(proof) || is_graph(proof) {
                // Every part is read and checked: the walk and its openings are complete.
                let keeping = Keeping { session_id: 0, staged: false };
                let (model_id, io_hash, _, _, _, certified) = self.verify_walk(proof, true, keeping);
                let record = ProofRecord { model_id, io_hash, kind: *proof[1] };
                return self.finish(poseidon_hash_span(proof), record, certified);
            }
            let session = self.start_pcs(proof, poseidon_hash_span(proof), true, false);
            let record = ProofRecord {
                model_id: session.model_id, io_hash: session.io_hash, kind: KIND_PCS,
            };
            self.finish(session.proof_hash, record, array![].span())
        }

        fn open_session(ref self: ContractState, proof: Span<felt252>, staged: bool) -> felt252 {
            let session_id = poseidon_hash_span(proof);
            let caller = get_caller_address();
            let owner = self.sessions.entry(session_id).owner.read();
            assert(owner.is_zero() || owner == caller, 'session.owner');
            if is_walk(proof) || is_graph(proof) {
                let keeping = Keeping { session_id, staged };
                let (model_id, io_hash, phases, (front, records), pause, certified) = self
                    .verify_walk(proof, false, keeping);
                let none = array![].span();
                let (walk, statement, phases, kept) = match pause {
                    Some(pause) => {
                        let (walk, phases) = paused(
                            pause.walk, pause.settled, self.front_class.read(),
                        );
                        let statement = if staged {
                            none
                        } else {
                            pause.io
                        };
                        (walk, statement, phases, keeping.add(no_kept(), pause.kept, true))
                    },
                    None => (none, none, phases, witness_kept(records)),
                };
                let session = Session {
                    kind: *proof[1],
                    model_id,
                    io_hash,
                    proof_hash: session_id,
                    phases,
                    walk,
                    statement,
                    front,
                    certified,
                    staged,
                };
                return self.advance(session_id, caller, session, kept);
            }
            let session = self.start_pcs(proof, session_id, false, staged);
            self.advance(session_id, caller, session, no_kept())
        }

        fn continue_session(
            ref self: ContractState,
            session_id: felt252,
            state: Span<felt252>,
            kept: Span<felt252>,
            parts: Span<felt252>,
        ) -> felt252 {
            let open = self.sessions.entry(session_id).read();
            assert(open.state_hash != 0, 'session.unknown');
            assert(open.owner == get_caller_address(), 'session.owner');
            assert(poseidon_hash_span(state) == open.state_hash, 'session.state');
            assert(poseidon_hash_span(kept) == open.kept_hash, 'session.kept');
            // Every step checks at least one part: a step cannot just move the state on.
            assert(!parts.is_empty(), 'session.empty');
            let mut state = state;
            let mut session: Session = Serde::deserialize(ref state).unwrap();
            let keeping = Keeping { session_id, staged: session.staged };
            let mut kept = kept_of(kept);
            if !session.front.is_empty() {
                let records = keeping.records(@kept);
                let (phases, front) = self
                    .continue_witness(session.phases, session.front, parts, records);
                session.phases = phases;
                session.front = front;
                if front.is_empty() {
                    kept = no_kept();
                }
            } else if session.walk.is_empty() {
                session.phases = continue_openings(session.phases, parts, false);
            } else {
                let graph = ICairnGraphVerifierLibraryDispatcher {
                    class_hash: self.graph_class.read(),
                };
                let statement = if session.staged {
                    let staged = read_span(statement_key(open.owner, session.io_hash));
                    assert(poseidon_hash_span(staged) == session.io_hash, 'session.statement');
                    staged
                } else {
                    session.statement
                };
                let (walk, classes) = (session.walk, self.classes());
                let (checks, walked) = (keeping.checks(@kept), keeping.walked(@kept));
                match graph.continue_graph(statement, checks, walk, parts, walked, classes) {
                    GraphStep::Walking(pause) => {
                        kept = keeping.add(kept, pause.kept, false);
                        let (walk, phases) = paused(pause.walk, pause.settled, self.front_class.read());
                        session.walk = walk;
                        for phase in phases {
                            session.phases.append(phase);
                        }
                    },
                    GraphStep::Settled(outcome) => {
                        session.walk = array![].span();
                        session.statement = array![].span();
                        let (model_id, phases, (front, records)) = self
                            .settled_graph(outcome, session.phases, parts, false, keeping, @kept);
                        session.model_id = model_id;
                        session.phases = phases;
                        session.front = front;
                        kept = witness_kept(records);
                    },
                }
            }
            let (proof_hash, _, _) = hades_permutation(
                session.proof_hash, poseidon_hash_span(parts), 2,
            );
            session.proof_hash = proof_hash;
            self.advance(session_id, open.owner, session, kept)
        }

        fn stage(
            ref self: ContractState,
            statement_hash: felt252,
            length: u32,
            offset: u32,
            felts: Span<felt252>,
        ) {
            let key = statement_key(get_caller_address(), statement_hash);
            set_span_length(key, length);
            write_at(key, offset, felts);
        }

        fn session_state_hash(self: @ContractState, session_id: felt252) -> felt252 {
            self.sessions.entry(session_id).state_hash.read()
        }

        fn is_verified(self: @ContractState, proof_hash: felt252) -> bool {
            self.proofs.entry(proof_hash).kind.read() != 0
        }

        fn get_proof(self: @ContractState, proof_hash: felt252) -> ProofRecord {
            let record = self.proofs.entry(proof_hash).read();
            assert(record.kind != 0, 'registry.unknown_proof');
            record
        }

        fn is_certified(self: @ContractState, key: felt252) -> bool {
            self.certified.entry(key).read()
        }

        fn owner(self: @ContractState) -> ContractAddress {
            self.owner.read()
        }

        fn register_model(
            ref self: ContractState,
            model_id: felt252,
            config_hash: felt252,
            commitments: Span<felt252>,
        ) {
            assert(get_caller_address() == self.owner.read(), 'registry.not_owner');
            assert(model_id != NO_MODEL, 'registry.model_id_zero');
            let entry = self.models.entry(model_id);
            assert(!entry.registered.read(), 'registry.exists');
            assert(!commitments.is_empty(), 'registry.no_commitments');
            entry.registered.write(true);
            entry.config_hash.write(config_hash);
            for commitment in commitments {
                entry.commitments.push(*commitment);
            }
            self
                .emit(
                    ModelRegistered {
                        model_id, config_hash, commitments_hash: poseidon_hash_span(commitments),
                    },
                );
        }

        fn is_registered(self: @ContractState, model_id: felt252) -> bool {
            self.models.entry(model_id).registered.read()
        }

        fn get_model(self: @ContractState, model_id: felt252) -> Model {
            let entry = self.models.entry(model_id);
            assert(entry.registered.read(), 'registry.unknown_model');
            let mut commitments = array![];
            for i in 0..entry.commitments.len() {
                commitments.append(entry.commitments.at(i).read());
            }
            Model { config_hash: entry.config_hash.read(), commitments }
        }
    }


    /// A model walk's state after a transaction that paused it (`GraphPause`), and the query
    /// phases it adds: if it verified the settlement, the committed tensors' opening's front,
    /// verified here, and the walk settled on the channel that front leaves.
    fn paused(
        walk: Span<felt252>, settled: Option<WalkOpenings>, fronts: ClassHash,
    ) -> (Span<felt252>, Array<QueryPhase>) {
        let openings = match settled {
            Some(openings) => openings,
            None => { return (walk, array![]); },
        };
        let (phases, channel) = verify_fronts(openings, fronts);
        let mut state = array![];
        settled_walk(channel).serialize(ref state);
        (state.span(), phases)
    }

    /// Where `stage` keeps the statement whose felts hash to `statement_hash` for `account`.
    fn statement_key(account: ContractAddress, statement_hash: felt252) -> felt252 {
        poseidon_hash_span(array!['statement', account.into(), statement_hash].span())
    }

    /// Where a session keeps what its model walk's verified nodes left (`Kept`): relayed by
    /// its caller, or, opened `staged` (a walk too large for that: MiniLM's records alone are
    /// ≈ 5,000 felts), in its storage.
    #[derive(Copy, Drop)]
    struct Keeping {
        session_id: felt252,
        staged: bool,
    }

    #[generate_trait]
    impl KeepingImpl of KeepingTrait {
        /// What the session relays after a transaction that added `more` to `kept` (`fresh`:
        /// its first): the two joined; stored, `more` written (afresh or appended) and nothing.
        fn add(self: @Keeping, kept: Kept, more: Kept, fresh: bool) -> Kept {
            if !*self.staged {
                return joined(kept, more);
            }
            let id = *self.session_id;
            if fresh {
                write_span(checks_key(id), more.checks);
                write_span(walked_key(id), more.walked);
            } else {
                append(checks_key(id), more.checks);
                append(walked_key(id), more.walked);
            }
            store_records(id, more.witnessed);
            no_kept()
        }

        /// The nodes' checks so far.
        fn checks(self: @Keeping, kept: @Kept) -> Span<felt252> {
            if *self.staged {
                read_span(checks_key(*self.session_id))
            } else {
                *kept.checks
            }
        }

        /// What the nodes verified so far left on weights, for the graph class.
        fn walked(self: @Keeping, kept: @Kept) -> Walked {
            if *self.staged {
                Walked::Stored(walked_key(*self.session_id))
            } else {
                Walked::Kept(*kept.walked)
            }
        }

        /// The nodes' witness records, for the graph class.
        fn records(self: @Keeping, kept: @Kept) -> SessionRecords {
            if *self.staged {
                SessionRecords::Stored(witnessed_key(*self.session_id))
            } else {
                SessionRecords::Kept(*kept.witnessed)
            }
        }
    }

    /// Where a staged session keeps its model walk's nodes' checks so far.
    fn checks_key(session_id: felt252) -> felt252 {
        poseidon_hash_span(array!['checks', session_id].span())
    }

    /// Where a staged session keeps what its model walk's verified nodes left on their weights
    /// (their `NodeClaims`' weights' parts, last node first), which the graph class reads at
    /// the settlement.
    fn walked_key(session_id: felt252) -> felt252 {
        poseidon_hash_span(array!['walked', session_id].span())
    }

    /// Under what base a staged session keeps its model walk's verified nodes' witness records
    /// (each node's own and tables' at `record_key`), which the graph class reads for the
    /// witness opening's polynomials.
    fn witnessed_key(session_id: felt252) -> felt252 {
        poseidon_hash_span(array!['witnessed', session_id].span())
    }

    fn store_records(session_id: felt252, records: Span<NodeRecord>) {
        let base = witnessed_key(session_id);
        for r in records {
            write_span(record_key(base, *r.node, false), *r.own);
            write_span(record_key(base, *r.node, true), *r.tables);
        }
    }

    fn no_kept() -> Kept {
        let none = array![].span();
        Kept { checks: none, walked: none, witnessed: array![].span() }
    }

    /// What a session keeps while its witness opening's front is part way: the nodes' witness
    /// records alone.
    fn witness_kept(records: Span<NodeRecord>) -> Kept {
        let none = array![].span();
        Kept { checks: none, walked: none, witnessed: records }
    }

    /// The `Kept` a caller sent back (no felts: nothing kept).
    fn kept_of(felts: Span<felt252>) -> Kept {
        if felts.is_empty() {
            return no_kept();
        }
        let mut felts = felts;
        Serde::deserialize(ref felts).unwrap()
    }

    /// Kept's felts as the caller sends them back: none when it keeps nothing.
    fn kept_felts(kept: @Kept) -> Span<felt252> {
        let mut felts = array![];
        if !kept.checks.is_empty() || !kept.walked.is_empty() || !kept.witnessed.is_empty() {
            kept.serialize(ref felts);
        }
        felts.span()
    }

    /// What the session keeps after a transaction that added `more` to `kept`.
    fn joined(kept: Kept, more: Kept) -> Kept {
        let (mut checks, mut walked, mut witnessed) = (array![], array![], array![]);
        checks.append_span(kept.checks);
        checks.append_span(more.checks);
        walked.append_span(kept.walked);
        walked.append_span(more.walked);
        witnessed.append_span(kept.witnessed);
        witnessed.append_span(more.witnessed);
        Kept { checks: checks.span(), walked: walked.span(), witnessed: witnessed.span() }
    }

    #[generate_trait]
    impl InternalImpl of InternalTrait {
        /// Records a verified proof and the declarations it certifies, emits `ProofVerified`;
        /// returns its hash.
        fn finish(
            ref self: ContractState,
            proof_hash: felt252,
            record: ProofRecord,
            certified: Span<felt252>,
        ) -> felt252 {
            self.proofs.entry(proof_hash).write(record);
            for key in certified {
                self.certified.entry(*key).write(true);
            }
            let ProofRecord { model_id, io_hash, kind } = record;
            self.emit(ProofVerified { model_id, proof_hash, io_hash, kind });
            proof_hash
        }

        /// A PCS opening (kind 2): reads it up to the opening's front, then its group parts
        /// (all of them when `whole`, else as many whole parts as follow), then verifies the
        /// transcript and the groups read. `proof_hash` is `poseidon_hash_span(proof)`, the
        /// proof hash so far.
        fn start_pcs(
            self: @ContractState,
            proof: Span<felt252>,
            proof_hash: felt252,
            whole: bool,
            staged: bool,
        ) -> Session {
            let decoded = read_pcs(proof, @POSEIDON_PARAMS, whole);
            let channel: Poseidon252Channel = Default::default();
            let (mut phase, _) = self
                .fronts()
                .poseidon_front(decoded.params, decoded.statement, decoded.front, channel);
            verify_groups(@decoded.params, ref phase, decoded.groups);
            let io_hash = poseidon_hash_span(decoded.io);
            Session {
                kind: KIND_PCS,
                model_id: NO_MODEL,
                io_hash,
                proof_hash,
                phases: array![phase],
                walk: array![].span(),
                statement: array![].span(),
                front: array![].span(),
                certified: array![].span(),
                staged,
            }
        }

        /// After a transaction of session `session_id`, opened by `owner`: finishes it if the
        /// walk is settled and the last group checked (clears it, returns the proof hash), else
        /// stores the owner, the state's hash and the hash of what it keeps (`kept`), emits the
        /// former and the latter's felts, and returns 0.
        fn advance(
            ref self: ContractState,
            session_id: felt252,
            owner: ContractAddress,
            session: Session,
            kept: Kept,
        ) -> felt252 {
            let entry = self.sessions.entry(session_id);
            // No phase is complete vacuously while a model walk has not reached its openings.
            let opening = session.walk.is_empty() && session.front.is_empty();
            if opening && openings_complete(@session.phases) {
                entry.write(OpenSession { owner: Zero::zero(), state_hash: 0, kept_hash: 0 });
                let record = ProofRecord {
                    model_id: session.model_id, io_hash: session.io_hash, kind: session.kind,
                };
                return self.finish(session.proof_hash, record, session.certified);
            }
            let mut state = array![];
            session.serialize(ref state);
            let state_hash = poseidon_hash_span(state.span());
            let mut felts = kept_felts(@kept);
            let kept_hash = poseidon_hash_span(felts);
            entry.write(OpenSession { owner, state_hash, kept_hash });
            self.emit(SessionState { session_id, state_hash });
            while !felts.is_empty() {
                let n = core::cmp::min(KEPT_CHUNK, felts.len());
                self.emit(SessionKept { session_id, felts: felts.slice(0, n) });
                felts = felts.slice(n, felts.len() - n);
            }
            0
        }

        /// A walk's binding (docs/registry.md): every committed weight is the registered
        /// model's commitment at its index, and the model's config hash is the binding's:
        /// `registry.unknown_model`, `registry.weight` (no such entry), `registry.commitment`
        /// (another commitment or shape), `registry.config`. Returns the model id (0 without a
        /// binding). The registered list is read once, as far as the largest index asked
        /// (`registered_entry`): MiniLM binds 101 weights.
        fn check_walk_binding(self: @ContractState, binding: Option<BindingCheck>) -> felt252 {
            let b = match binding {
                Some(b) => b,
                None => { return NO_MODEL; },
            };
            let entry = self.models.entry(b.model_id);
            assert(entry.registered.read(), 'registry.unknown_model');
            let mut entries = array![];
            let mut next: u64 = 0;
            for (index, expected) in b.weights {
                while entries.len() <= index {
                    let (registered, end) = self.registered_entry(b.model_id, next);
                    entries.append(registered);
                    next = end;
                }
                assert(*entries[index] == expected.span(), 'registry.commitment');
            }
            assert(entry.config_hash.read() == b.config_hash, 'registry.config');
            b.model_id
        }

        /// A walk proof (kind 4: verified by its kind's walk class, then its openings here) or
        /// a model walk (kind 5: by the graph class, which calls the walk classes node by
        /// node), by `library_call`; then its openings here: their fronts (the committed
        /// tensors', then the witness opening on a Blake2s fork), then their groups from the
        /// group parts given (all of them when `whole`; every part read before any is
        /// verified); then the binding against the registry. Returns the model id, the io
        /// hash, each opening's query phase, a model walk's witness opening's front if part way
        /// (`WitnessStage` by Serde, else empty) with the witness records its rest reads,
        /// where a model walk stopped if before its witness opening's part (never when
        /// `whole`), and the declarations the walk certifies.
        fn verify_walk(
            self: @ContractState, proof: Span<felt252>, whole: bool, keeping: Keeping,
        ) -> (
            felt252,
            felt252,
            Array<QueryPhase>,
            (Span<felt252>, Span<NodeRecord>),
            Option<GraphPause>,
            Span<felt252>,
        ) {
            let classes = self.classes();
            let none = array![].span();
            let unwitnessed = (none, array![].span());
            if is_graph(proof) {
                let graph = ICairnGraphVerifierLibraryDispatcher {
                    class_hash: self.graph_class.read(),
                };
                return match graph.start_graph(proof, whole, classes) {
                    GraphStep::Walking(pause) => {
                        let io_hash = poseidon_hash_span(pause.io);
                        (NO_MODEL, io_hash, array![], unwitnessed, Some(pause), none)
                    },
                    GraphStep::Settled(outcome) => {
                        let io_hash = outcome.io_hash;
                        let (model_id, phases, front) = self
                            .settled_graph(outcome, array![], proof, whole, keeping, @no_kept());
                        (model_id, io_hash, phases, front, None, none)
                    },
                };
            }
            let class_hash = class_of(classes, statement_kind(proof));
            let outcome = ICairnWalkVerifierLibraryDispatcher { class_hash }
                .verify_walk(proof, classes);
            let at = outcome.groups_at;
            let groups = proof.slice(at, proof.len() - at);
            let phases = verify_openings(outcome.openings, groups, whole, self.front_class.read());
            let model_id = self.check_bound(outcome.binding, outcome.declared);
            (model_id, outcome.io_hash, phases, unwitnessed, None, outcome.certified)
        }

        /// A model walk verified up to its openings (`outcome`, whose next parts start at
        /// `groups_at` in `data`; `earlier` the query phase of the committed tensors' opening
        /// if an earlier transaction verified its front): the committed front left, the
        /// witness opening's front in stages from the step parts given (`witness_steps`, whose
        /// claims a session finds in the witness records it keeps, `kept` or stored, joined by
        /// those of the nodes this transaction verified), then the groups from the group parts
        /// given (all of them when `whole`), then its binding and declarations
        /// (`check_bound`). Returns the model id, the query phases and the witness opening's
        /// front if part way with the witness records its rest reads if relayed.
        fn settled_graph(
            self: @ContractState,
            outcome: GraphOutcome,
            earlier: Array<QueryPhase>,
            data: Span<felt252>,
            whole: bool,
            keeping: Keeping,
            kept: @Kept,
        ) -> (felt252, Array<QueryPhase>, (Span<felt252>, Span<NodeRecord>)) {
            let mut phases = earlier;
            let (fronts, channel) = verify_fronts(outcome.openings, self.front_class.read());
            for phase in fronts {
                phases.append(phase);
            }
            let at = outcome.groups_at;
            let mut rest = data.slice(at, data.len() - at);
            let mut front = array![];
            let more = witness_kept(outcome.witnessed);
            let kept = if whole {
                no_kept()
            } else {
                keeping.add(*kept, more, false)
            };
            let records = keeping.records(@kept);
            if let Some(w) = outcome.witness {
                let (poly_vars, poly_roots) = (w.polys.poly_vars, w.polys.poly_roots);
                let child = witness_fork(@channel);
                let replay = self
                    .fronts()
                    .witness_start(w.polys.hash, poly_vars, poly_roots, w.front, child);
                let mut stage = WitnessStage { replay, polys: w.polys };
                match self.witness_steps(ref stage, ref rest, whole, w.claims, records) {
                    Some(phase) => phases.append(phase),
                    None => stage.serialize(ref front),
                }
            }
            let phases = continue_openings(phases, rest, whole);
            let model_id = self.check_bound(outcome.binding, outcome.declared);
            let relayed = if front.is_empty() {
                array![].span()
            } else {
                kept.witnessed
            };
            (model_id, phases, (front.span(), relayed))
        }

        /// A session's next parts while its model walk's witness opening's front is part way
        /// (`front`, a `WitnessStage` by Serde, whose claims are in the witness records
        /// `records`, relayed or stored): its step parts (`witness_steps`), then, once it is verified, its query
        /// phase joins `phases` and the group parts left are read. Returns the phases and the
        /// front if still part way.
        fn continue_witness(
            self: @ContractState,
            phases: Array<QueryPhase>,
            front: Span<felt252>,
            parts: Span<felt252>,
            records: SessionRecords,
        ) -> (Array<QueryPhase>, Span<felt252>) {
            let mut front = front;
            let mut stage: WitnessStage = Serde::deserialize(ref front).unwrap();
            let mut rest = parts;
            let mut phases = phases;
            let mut left = array![];
            match self.witness_steps(ref stage, ref rest, false, array![].span(), records) {
                Some(phase) => phases.append(phase),
                None => stage.serialize(ref left),
            }
            (continue_openings(phases, rest, false), left.span())
        }

        /// The witness opening's step parts in `data` (all of them when `whole`:
        /// `read_witness_steps`), the polynomials absorbed, then reduced, in order, by the front
        /// class; their claims from `held` (a whole proof's) or from the graph class, which
        /// finds them in a session's witness records (`records`). Returns the query phase once
        /// every polynomial is reduced.
        fn witness_steps(
            self: @ContractState,
            ref stage: WitnessStage,
            ref data: Span<felt252>,
            whole: bool,
            held: Span<Span<Claim>>,
            records: SessionRecords,
        ) -> Option<QueryPhase> {
            let n = stage.polys.poly_vars.len();
            let absorbed = stage.replay.absorbed;
            let count = read_witness_steps(ref data, absorbed, n, whole);
            let absorb = self.claims_of(@stage.polys, held, absorbed, count, records);
            let reduced = stage.replay.reduced;
            let count = if absorbed + count == n {
                read_witness_steps(ref data, reduced, n, whole)
            } else {
                0
            };
            let reduce = self.claims_of(@stage.polys, held, reduced, count, records);
            if absorb.is_empty() && reduce.is_empty() {
                return None;
            }
            let hash = stage.polys.hash;
            let (replay, phase) = self.fronts().witness_steps(hash, stage.replay, absorb, reduce);
            stage.replay = replay;
            phase
        }

        fn fronts(self: @ContractState) -> FrontClass {
            FrontClass { class_hash: self.front_class.read() }
        }

        fn claims_of(
            self: @ContractState,
            polys: @WitnessPolys,
            held: Span<Span<Claim>>,
            from: u32,
            count: u32,
            records: SessionRecords,
        ) -> Span<Span<Claim>> {
            if count == 0 {
                return array![].span();
            }
            if !held.is_empty() {
                return held.slice(from, count);
            }
            let graph = ICairnGraphVerifierLibraryDispatcher {
                class_hash: self.graph_class.read(),
            };
            graph.witness_claims(*polys, from, count, records)
        }

        /// A walk's binding (`check_walk_binding`), then that every declaration it relies on
        /// was certified (`graph.declared`); returns the model id.
        fn check_bound(
            self: @ContractState, binding: Option<BindingCheck>, declared: Span<felt252>,
        ) -> felt252 {
            let model_id = self.check_walk_binding(binding);
            for key in declared {
                assert(self.certified.entry(*key).read(), 'graph.declared');
            }
            model_id
        }

        fn classes(self: @ContractState) -> Classes {
            Classes {
                dense: self.dense_class.read(),
                attention: self.attention_class.read(),
                encoder: self.encoder_class.read(),
                range: self.range_class.read(),
                lookup: self.lookup_class.read(),
            }
        }

        /// The entry of a registered model's commitment list (tag, root in 1 or 2 felts, rank,
        /// dims) that starts at `start`, and where the next starts; `registry.weight` if the
        /// list holds no such entry.
        fn registered_entry(
            self: @ContractState, model_id: felt252, start: u64,
        ) -> (Span<felt252>, u64) {
            let list = self.models.entry(model_id).commitments;
            let len = list.len();
            assert(start < len, 'registry.weight');
            let tag = list.at(start).read();
            let root_felts: u64 = if tag == HASH_POSEIDON {
                1
            } else if tag == HASH_BLAKE2S {
                2
            } else {
                core::panic_with_felt252('registry.weight')
            };
            assert(start + 1 + root_felts < len, 'registry.weight');
            let rank: u64 = match list.at(start + 1 + root_felts).read().try_into() {
                Some(r) => r,
                None => core::panic_with_felt252('registry.weight'),
            };
            let end = start + 2 + root_felts + rank;
            assert(end <= len, 'registry.weight');
            let mut registered = array![];
            for i in start..end {
                registered.append(list.at(i).read());
            }
            (registered.span(), end)
        }
    }
}
