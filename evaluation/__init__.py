"""Evaluation of agents: duplicate matches, their statistics, reports and the rating ladder."""
