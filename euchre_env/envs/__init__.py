"""The environments: the game behind the interfaces that RL code expects.

``aec`` (the PettingZoo AEC env, ``euchre_env.env`` / ``raw_env``) with its ``wrappers``; ``single_seat``
(one seat or team as a Gymnasium env against given opponents); ``vector`` (``VectorEuchre``: many games
stepped at once on the compiled copy); ``episodes`` (what an episode is, its reward and truncation, shared
by all of them); ``single_seat_vector`` (a learner in many games at once, a Gymnasium ``VectorEnv``) with
``learner_account`` (its compiled accounting of the hands that end); ``legal_space`` (a Gymnasium space that
samples legal actions); ``agent_specs`` (how an opponent spec string becomes an agent without the envs importing
the agents).
"""
