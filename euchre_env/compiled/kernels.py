"""The compiled core's public names in one place (0.2's module, split by concern in 0.3): the layout
(:mod:`~euchre_env.compiled.layout`), the rules (:mod:`~euchre_env.compiled.rules`, from ``game/engine.py``), the
observers (:mod:`~euchre_env.compiled.observe`, from ``views/``), dealing (:mod:`~euchre_env.compiled.deal`, from
``game/deals.py``), the batch kernels (:mod:`~euchre_env.compiled.batch`) and the one-game kernels
(:mod:`~euchre_env.compiled.one_game`). New code imports from those modules; this one re-exports them.
"""

from __future__ import annotations

from euchre_env.compiled.batch import (  # noqa: F401
    end_hands,
    end_hands_serial,
    first_illegal,
    hand_outcome,
    observe_games,
    observe_games_serial,
    observe_games_sparse,
    observe_games_sparse_serial,
    random_actions,
    random_actions_serial,
    slice_of,
    start_hands,
    start_hands_serial,
    step_all,
    step_all_serial,
    step_games,
    step_games_serial,
)
from euchre_env.compiled.deal import deal_on, lay_out, shuffle, shuffled_deals, stream_uniforms  # noqa: F401
from euchre_env.compiled.layout import *  # noqa: F403
from euchre_env.compiled.observe import canonical, choose_frame, decide, encode, encode_seat, in_frame  # noqa: F401
from euchre_env.compiled.one_game import (  # noqa: F401
    PACKED_TABLES,
    game_deal,
    game_encode_seats,
    game_start,
    game_step,
    pack_tables,
    packed_sizes,
)
from euchre_env.compiled.rules import ace_no_face_eligible, apply, legal_mask, start_hand, trick_winner  # noqa: F401
