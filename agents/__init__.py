"""Agents that play euchre_env: one protocol, one module per kind of agent."""

from euchre_env.agents.base import Agent
from euchre_env.agents.random_agent import RandomAgent
from euchre_env.agents.registry import agent_names, make_agent

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent"]
