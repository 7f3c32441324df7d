"""The compiled copy of the game: the engine's methods ported to C (``c/engine.h``) over arrays of games.

Derived, never defining: ``tables`` builds every table the kernels read from the game's and the views'
own modules, ``layout`` names the arrays' fields (``c/layout.h`` is generated from it), ``c/`` holds the C of the
rules and the observers, ``batch`` and ``game`` drive the extension ``_core`` (many games; the AEC env's one
game), and ``native`` loads the extensions and runs a batch's slices on threads.
The differential tests (tests/differential/) prove it equal to the game. It imports the game and the
views, never an environment.
"""
