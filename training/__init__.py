"""Evaluation of agents: duplicate matches (:mod:`training.evaluate`), rating ladders
(:mod:`training.ladder`) and the ``euchre`` command line (:mod:`training.cli`)."""
