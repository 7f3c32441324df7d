"""Agents that play euchre_env: one protocol, one module per kind of agent."""

from agents.base import Agent
from agents.random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent"]
