"""Agents that play euchre_env: one protocol, one module per kind of agent."""

from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.registry import agent_names, make_agent

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent"]
