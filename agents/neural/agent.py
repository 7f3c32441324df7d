"""An agent that plays a trained policy network (needs the ``train`` extra: torch).

``NeuralAgent("runs/knock/checkpoints/best.pt")`` plays the network's most probable legal
action; ``greedy=False`` samples from its masked policy with the agent's seeded generator.
As an agent spec, a path to a ``.pt`` file is a greedy NeuralAgent. The trainer's own
evaluations pass the live network instead of a path: ``NeuralAgent(actor, rules, observation=...)``.

The agent encodes its own input from ``info["information_state"]`` (what its seat knows, see
``euchre_env.views.seat_view``) with the observer of the observation it was trained on, so it plays
in any driver and in an env of either ``observation`` option. With the structured observation
it works in its seat's canonical suit frame: the legal mask goes into the frame, the chosen
canonical action comes back out as an absolute id, as the agent protocol requires. Without an
information state (a PettingZoo loop of an env made without ``info_state=True``) it plays
``observation["observation"]`` when that is its own encoding (absolute, of its size).

The checkpoint is read with ``torch.load(weights_only=True)`` and checked (format, observation
fingerprint); the first decision also checks that the game's rules are the ones it was
trained for, and fails with a message naming the differences otherwise.

Compiled twin: :class:`NeuralBatchPolicy` (``batch_twin`` returns it bound to the agent, a
:class:`~euchre_env.agents.base.BoundTwin`): one forward pass for many games of a ``VectorEuchre``, each seat
encoded from the engine's arrays by the compiled observer (``compiled._core.Batch.observe_games_sparse`` /
``observe_games``, C). Proven equal by tests/differential/test_neural_batch_policy_vs_neural_agent.py (every
decision), and in whole games by tests/differential/test_batch_play_vs_match.py and
tests/differential/test_single_seat_vector_vs_single_seat.py. """

from __future__ import annotations

import os
from typing import Any

import numpy as np
import torch

from euchre_env.agents.base import BoundTwin
from euchre_env.agents.neural.belief import BeliefHead
from euchre_env.agents.neural.checkpoint import (
    CheckpointError,
    build_belief,
    build_model,
    check_rules,
    load_checkpoint,
)
from euchre_env.agents.neural.network import ActorCritic, PolicyNet
from euchre_env.agents.neural.sparse_input import SparseInputLinear, SparseRows
from euchre_env.game.rules import Rules
from euchre_env.views.infostate import InfoState
from euchre_env.views.seat_view import seat_view
from euchre_env.views.structured import Frame, make_observer

# (path, mtime, size) -> what the checkpoint plays: its actor, rules, observation kind and belief head (or None)
_MODELS: dict[tuple[str, int, int], tuple[PolicyNet, Rules, str, BeliefHead | None]] = {}
# A batch twin observes on the vector env's threads (one made with ``threads`` other than 1) from this many games
# (a slice a thread); fewer games: starting the threads costs more.
PARALLEL_FROM = 256


def _load(path: str) -> tuple[PolicyNet, Rules, str, int, BeliefHead | None]:
    """The actor, rules, observation kind and version and belief head (None: none) of the checkpoint at ``path``, read
    once per file version.

    The harness builds one agent per seat and per deal: the cache keeps that to one read, and
    the file's modification time and size in the key make a rewritten checkpoint load afresh.
    """
    try:
        st = os.stat(path)
        key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    except OSError:
        key = None  # missing or unreadable: load_checkpoint says which
    if key is None or key not in _MODELS:
        data = load_checkpoint(path)
        loaded = (build_model(data, path), data["rules"], data["observation"], data["observation_version"],
                  build_belief(data, path))
        if key is None:
            return loaded
        _MODELS[key] = loaded
    return _MODELS[key]


class NeuralAgent:
    """Plays a policy network: greedy by default, or sampled.

    ``checkpoint`` is a path to a checkpoint file (read and checked; the rules and the
    observation come from the file, and ``rules`` / ``observation``, if given, must be the
    same) or an in-memory :class:`PolicyNet` (an :class:`ActorCritic` gives its actor; then
    ``rules``, the rules it plays, is required, and ``observation`` is the kind it reads,
    ``"absolute"`` by default). ``name`` is the label evaluation tables print (default
    ``"neural"``). It holds the actor only: nothing of a critic.
    """

    name = "neural"
    needs_observation = False  # it encodes from info["information_state"] itself

    def __init__(
        self,
        checkpoint: str | os.PathLike | PolicyNet | ActorCritic,
        rules: Rules | None = None,
        *,
        observation: str | None = None,
        seed: int | None = None,
        greedy: bool = True,
        name: str | None = None,
    ) -> None:
        if rules is not None and not isinstance(rules, Rules):
            raise TypeError(f"NeuralAgent: rules must be a euchre_env Rules or None, got {type(rules).__name__} "
                            f"{rules!r} (pass the seed as seed=...)")
        self.belief: BeliefHead | None = None  # where the unseen cards are (agents/neural/belief.py), if it has one
        if isinstance(checkpoint, ActorCritic):
            self.belief = checkpoint.belief_head
            checkpoint = checkpoint.actor  # the critic is the trainer's; playing needs the actor only
        if isinstance(checkpoint, PolicyNet):
            if rules is None:
                raise ValueError("NeuralAgent: an in-memory network needs the rules it plays: "
                                 "NeuralAgent(model, rules)")
            self.source = name or "in-memory network"
            self.model, self.rules, self.observation = checkpoint, rules, observation or "absolute"
            self.observer = make_observer(rules, self.observation)  # ValueError in one line for an unknown kind
            if self.observer.size != self.model.obs_size:
                raise ValueError(f"NeuralAgent: the network takes {self.model.obs_size} inputs, the "
                                 f"{self.observation} observation of these rules has {self.observer.size}")
        elif isinstance(checkpoint, (str, os.PathLike)):
            self.source = os.fspath(checkpoint)
            self.model, self.rules, self.observation, version, self.belief = _load(self.source)
            if rules is not None:
                check_rules(self.source, self.rules, rules)
            if observation is not None and observation != self.observation:
                raise CheckpointError(f"checkpoint {self.source!r} was trained on the {self.observation} "
                                      f"observation, not {observation!r}")
            # The version it was trained on: a network of an older one still plays, encoding with its own blocks.
            self.observer = make_observer(self.rules, self.observation, version)
        else:
            raise TypeError("NeuralAgent: checkpoint must be a path to a .pt file or a PolicyNet / ActorCritic "
                            f"network, got {type(checkpoint).__name__}")
        if name is not None:
            self.name = name
        self.greedy = greedy
        self._checked = False
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The absolute id of the action chosen for the seat whose ``information_state`` ``info`` holds."""
        state = (info or {}).get("information_state")
        if state is None:
            obs, mask, frame = self._given(observation), np.asarray(observation["action_mask"]).astype(bool), None
        else:
            if not self._checked:
                self.check_rules(state.rules)
                self._checked = True
            obs, mask, frame = self.encode(state)
        if not mask.any():
            raise ValueError("NeuralAgent.act: the action mask has no legal action (is it this seat's turn?)")
        logits = self._logits(obs, mask)
        if self.greedy:
            action = int(logits.argmax())
        else:
            probs = torch.softmax(logits, -1).numpy().astype(np.float64)
            action = int(self.rng.choice(len(probs), p=probs / probs.sum()))
        return action if frame is None else frame.to_absolute_action(action)

    def action_probabilities(self, state: InfoState) -> np.ndarray:
        """``[num_actions]``, by absolute action id: the probability that :meth:`act` plays each action for
        ``state``'s seat: the softmax of the masked logits it samples from, or, greedy, 1 at its choice. What the
        local best response probe weighs worlds by (:func:`euchre_env.evaluation.lbr.policy_probability`)."""
        obs, mask, frame = self.encode(state)
        logits = self._logits(obs, mask)
        if self.greedy:
            probs = np.zeros(len(logits))
            probs[int(logits.argmax())] = 1.0
        else:
            probs = torch.softmax(logits, -1).numpy().astype(np.float64)
        if frame is None:
            return probs
        absolute = np.zeros(len(probs))
        for i in np.flatnonzero(mask):
            absolute[frame.to_absolute_action(int(i))] = probs[i]
        return absolute

    def _logits(self, obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        """The network's masked logits for one input (in the input's frame), on the CPU."""
        with torch.no_grad():
            x, m = torch.as_tensor(obs).unsqueeze(0), torch.as_tensor(mask).unsqueeze(0)
            device = self.model[0].weight.device  # an in-memory network may live on an accelerator
            if device.type != "cpu":
                x, m = x.to(device), m.to(device)
            return self.model.masked_logits(x, m)[0].cpu()

    def card_beliefs(self, state: InfoState) -> np.ndarray:
        """``[card ids, len(CARD_PLACES)]``: the belief head's probability that each card of the deck (absolute ids)
        lies in each of :data:`~euchre_env.game.seats.CARD_PLACES` (relative to ``state``'s seat), from
        what that seat knows. Rows of cards the seat holds or has seen played mean nothing. ValueError where the
        network has no belief head."""
        if self.belief is None:
            raise ValueError(f"NeuralAgent: {self.source!r} has no belief head (train one with ppo.belief_coef)")
        obs, _, frame = self.encode(state)
        with torch.no_grad():
            features = self.model.hidden_activations(torch.as_tensor(obs).unsqueeze(0))
            probs = torch.softmax(self.belief(features)[0], dim=-1).numpy()
        return probs if frame is None else probs[frame.card_to_canonical]  # absolute card c: its canonical row

    def encode(self, state: InfoState) -> tuple[np.ndarray, np.ndarray, Frame | None]:
        """The network's input and legal mask for ``state``'s seat, and the frame they are in (None: absolute; a
        structured observation's canonical suit frame, whose ``to_absolute_action`` maps the network's action
        ids back)."""
        mask = np.zeros(self.model.num_actions, bool)
        mask[list(state.legal_actions)] = True  # absolute ids, whatever frame the env's own mask is in
        view = seat_view(state)
        if self.observation == "structured":
            obs, frame = self.observer.encode_with_frame(view, state.seat)
            return obs, frame.canonical_mask(mask), frame
        return self.observer.encode(view, state.seat), mask, None

    def _given(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """``observation["observation"]`` when it is the network's own input (the plain loop without info state)."""
        if self.observation == "structured":
            # the env's canonical frame would have to be the agent's too: encoding itself is the one safe way
            raise ValueError(f"NeuralAgent: checkpoint {self.source!r} plays the structured observation from "
                             "info['information_state']: create the env with info_state=True")
        vec = observation.get("observation")
        size = None if vec is None else np.asarray(vec).shape[-1]
        if size != self.model.obs_size:
            raise CheckpointError(
                f"checkpoint {self.source!r} expects observations of {self.model.obs_size} floats (the absolute "
                f"observation of its rules), got {size}: create the env with info_state=True"
            )
        return np.asarray(vec, np.float32)

    def check_rules(self, rules: Rules) -> None:
        """Raise a CheckpointError unless the network was trained for ``rules``."""
        check_rules(self.source, self.rules, rules)

    def batch_twin(self, rules: Rules) -> BoundTwin:
        """This network deciding for many games of a ``VectorEuchre`` at once
        (:class:`~euchre_env.agents.base.BatchPolicy`); a CheckpointError if it was trained for other rules."""
        self.check_rules(rules)
        return BoundTwin(NeuralBatchPolicy, self, deterministic=self.greedy)


def _reads_entries(layer: torch.nn.Module) -> bool:
    """Whether a first layer computes from non-zero entries (its fast path): float32 weights on the CPU."""
    return isinstance(layer, SparseInputLinear) and layer.weight.dtype == torch.float32 \
        and layer.weight.device.type == "cpu"


class NeuralBatchPolicy:
    """A network's decisions for the seat to act in many games at once: each seat encoded from the engine's arrays
    by the compiled observer of the network's own observation (whatever the env's), one forward pass for all.

    The same input as :meth:`NeuralAgent.act` builds from the seat's ``InfoState`` (the compiled encoders are
    proven equal to the observers), so the same greedy choice; sampled, it draws with the caller's stream. A
    network whose first layer takes non-zero entries (a float32 :class:`SparseInputLinear` on the CPU, as every
    checkpoint loads) gets them from the observer directly (``observe_games_sparse``: no dense batch written,
    copied and scanned), in the order the layer's own scan finds them, so the same sums to the bit."""

    def __init__(self, agent: NeuralAgent, venv: Any) -> None:
        from euchre_env.compiled import batch
        from euchre_env.compiled import layout as K
        from euchre_env.compiled.tables import kernel_tables

        self._K, self._batch, self.agent, self.venv = K, batch, agent, venv
        self.deterministic = agent.greedy
        self._tables = t = kernel_tables(venv.rules, agent.observation)
        n = venv.num_envs
        size = agent.observer.size
        self._st = np.zeros((n, K.NF), np.int32)  # the observer writes each game's frame: it runs on a copy
        self._mask = np.zeros((n, agent.model.num_actions), np.bool_)
        # The compiled observer of the network's observation over the engine's games (its own copy of the state
        # rows), made once: its views of the arrays are held for its life.
        self._observer = batch.core.Batch(venv.engine.arrays._replace(st=self._st), t.kernel)
        self._obs: np.ndarray | None = None  # the dense rows, made on first use by a network that reads them
        # The entries' buffers: room for every entry of every game, so that the slices of a parallel call can
        # each write from their first game's row on (the kernel's docstring).
        width = batch.sparse_width(size)
        self._ptr = np.zeros(n + 1, np.int64)
        self._col = np.empty(n * width, np.int32)
        self._val = np.empty(n * width, np.float32)

    def actions(self, games: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        logits = self._logits(games)
        if self.agent.greedy:
            ids = logits.argmax(-1).numpy()
        else:
            generator = torch.Generator().manual_seed(int(rng.integers(2**62)))
            ids = torch.multinomial(torch.softmax(logits, -1), 1, generator=generator)[:, 0].numpy()
        absolute = self._tables.to_abs[self._st[games, self._K.FRAME], ids]
        return self.venv.to_canonical_batch(games, absolute)

    def probabilities(self, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """``float64 [len(games)]``: the network's probability of the absolute action ``actions[i]`` for the seat
        to act in game ``games[i]`` (its softmax over the legal actions); what a belief over hidden cards weighs
        an observed move by."""
        probs = torch.softmax(self._logits(games).double(), -1).numpy()
        canonical = self._tables.to_canonical[self._st[games, self._K.FRAME], actions]
        return probs[np.arange(len(games)), canonical]

    def _logits(self, games: np.ndarray) -> torch.Tensor:
        """The masked logits of the seat to act in each of ``games``, in the network's frame, on the CPU."""
        self._st[games] = self.venv.engine.arrays.st[games]  # the rows the observer reads (and writes each frame into)
        games = np.ascontiguousarray(games, np.int64)
        model = self.agent.model
        first = model[0]
        with torch.no_grad():
            if _reads_entries(first):
                k = games.size
                slices = self.venv.slices if k >= PARALLEL_FROM else 1
                self._batch.observe_sparse(self._observer, games, self._mask, self._ptr, self._col, self._val, slices)
                nnz = self._ptr[k]
                rows = SparseRows(self._ptr[:k + 1], self._col[:nnz], self._val[:nnz], self.agent.observer.size)
                return model.masked_logits(rows, torch.from_numpy(self._mask[:k]))
            if self._obs is None:
                self._obs = np.zeros((self.venv.num_envs, self.agent.observer.size), np.float32)
            self._observer.observe_games(games, self._obs, self._mask, True)
            x, m = torch.from_numpy(self._obs[games]), torch.from_numpy(self._mask[games])
            device = first.weight.device  # an in-memory network may live on an accelerator
            if device.type != "cpu":
                x, m = x.to(device), m.to(device)
            return model.masked_logits(x, m).cpu()
