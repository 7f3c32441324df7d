"""The game: the definition of Euchre's rules in plain Python, and nothing else.

Cards and decks (``cards``), seats and teams (``seats``), the phases of a hand (``phases``), the rule
options and presets (``rules``), the action table (``actions``), deals (``deals``), scoring (``scoring``)
and ``GameState`` (``engine``), which plays them. This package imports nothing above it: every view, the
compiled copy and every environment are built on it, so a rule lives here and only here.
"""
