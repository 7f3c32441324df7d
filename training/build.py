"""What a run builds from its config: the league's scripted agents, the oracle, the networks, the collector.

One home for these, so that the trainer and its Ray rollout workers (:mod:`.ray_collect`), which each build
their own copies, build the same ones.
"""

from __future__ import annotations

from typing import Any

import torch

from euchre_env.agents.neural.network import ActorCritic
from euchre_env.agents.registry import build_for_rules
from euchre_env.game.actions import action_table
from euchre_env.game.rules import Rules
from euchre_env.training.config import TrainConfig
from euchre_env.training.oracle import Oracle
from euchre_env.training.selfplay import PAST, SELF, SelfPlay
from euchre_env.training.solver_targets import SolverTargets
from euchre_env.views.structured import make_observer


def scripted_agents(config: TrainConfig, rules: Rules) -> dict[str, Any]:
    """The league's scripted members (agent spec -> agent): every mix entry but ``self`` and ``past``, each checked
    against the run's ``rules`` (a ValueError line for a bad or refused checkpoint, or one for other rules)."""
    return {s: build_for_rules(s, rules) for s in config.league.mix if s not in (SELF, PAST)}


def check_later_agents(config: TrainConfig, rules: Rules) -> None:
    """Build once, against the run's rules, every agent the run meets only later (the cloning teacher, the periodic
    and the final evaluations' opponents): a bad or refused checkpoint is one ValueError line before the run's
    folder is written, not a traceback after the cloning or hours of training. The league's are built at once."""
    teacher = [config.pretrain.teacher] if config.pretrain.teacher else []
    periodic = config.eval.opponents if config.eval.every else []
    for spec in dict.fromkeys([*teacher, *periodic, *config.final_eval.opponents]):
        build_for_rules(spec, rules, 0)


def make_oracle(config: TrainConfig, rules: Rules, scripted: dict[str, Any]) -> Oracle | None:
    """The oracle critic's features (who may hold the other team: a fixed layout for the run's league)."""
    return Oracle(rules, [SELF, PAST, *scripted]) if config.model.critic == "oracle" else None


def make_model(config: TrainConfig, rules: Rules, oracle: Oracle | None, dense: bool = False) -> ActorCritic:
    """The actor-critic of the run, its initial weights seeded by ``run.seed`` (on the CPU; ``dense``: in the
    accelerator's form, the same weights)."""
    model = config.model
    torch.manual_seed(config.run.seed)
    return ActorCritic(make_observer(rules, model.observation).size, len(action_table(rules)), model.hidden,
                       critic_extra=oracle.size if oracle is not None else 0,
                       solver_head=config.ppo.solver_coef > 0,
                       belief_cards=rules.deck_spec.num_ids if config.ppo.belief_coef > 0 else 0, dense=dense)


def make_selfplay(config: TrainConfig, rules: Rules, model: ActorCritic, oracle: Oracle | None,
                  mix: dict[str, float], scripted: dict[str, Any]) -> SelfPlay:
    """A collector of ``model`` against ``mix`` (the league's, or the behaviour cloning's self-play), with the
    run's observation and oracle."""
    ppo = config.ppo
    solver = SolverTargets(rules) if ppo.solver_coef > 0 else None
    return SelfPlay(rules, model, ppo.num_games, mix, scripted, ppo.reward_scale,
                    observation=config.model.observation, oracle=oracle, solver=solver,
                    solver_fraction=ppo.solver_fraction)
