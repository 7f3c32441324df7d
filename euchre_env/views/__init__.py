"""What one seat may know, in the forms its users read: the views of the game.

``infostate`` (``InfoState``: the seat's knowledge as structured data, for rule-based and search agents),
``seat_view`` (an ``InfoState`` in the shape the encoders read), ``observation`` (the flat ``absolute``
vector), ``structured`` (the ``structured`` vector in the canonical suit frame), ``decision`` (what an
agent is shown at its turn and the check of its answer), ``render`` (the text table) and ``picture`` (the
table drawn, for ``render_mode="rgb_array"``). Views read the game; they never change it, and they never read
a card the seat may not see.
"""
