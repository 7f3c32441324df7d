"""The compiled copy of the game: the engine's methods ported to Numba over arrays of games.

Derived, never defining: ``tables`` builds every table the kernels read from the game's and the views'
own modules, ``kernels`` ports ``GameState``'s methods (and the observation encoders) to arrays,
``builds`` keeps the serial and parallel builds apart, and ``game`` is the one game the AEC env steps.
The differential tests (tests/differential/) prove it equal to the game. It imports the game and the
views, never an environment.
"""
