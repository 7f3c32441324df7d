"""The ``euchre`` command, one module per command group: ``main`` (the parser and the dispatch),
``evaluate`` (``eval``, ``ladder``, ``merge``), ``train`` (``train``), ``play`` (``play``, ``serve``),
``compiling`` (``compile``), and ``arguments`` (argument types shared with the examples)."""
