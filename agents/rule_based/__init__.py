"""The rule-based agent (``rules``): ``agent`` (``RuleBasedAgent``), the hand-strength estimates it shares
with PIMC (``heuristics``) and its compiled twin for many games at once (``compiled``)."""

from euchre_env.agents.rule_based.agent import RuleBasedAgent

__all__ = ["RuleBasedAgent"]
