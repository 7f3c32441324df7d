"""render_mode="rgb_array": the table drawn (euchre_env.views.picture), in the AEC env and SingleSeatEnv.

Shape, dtype and determinism; every preset (and the decks that stretch the layout: the joker, 32 cards, Bid
Euchre's double deck); no hidden card in a seat's picture (two states that differ only in cards the seat may not
see give the same picture, the god view tells them apart); the missing extra and bad options as one line;
PettingZoo's and Gymnasium's conventions, Gymnasium's RecordVideo included.
"""

from __future__ import annotations

import os
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import euchre_env
from euchre_env.envs.single_seat import SingleSeatEnv
from euchre_env.game.engine import GameState
from euchre_env.game.rules import PRESETS, Rules
from euchre_env.views.picture import HEIGHT, WIDTH, table_picture
from euchre_env.views.render import ALL, TABLE, visible_hands

DECKS = [(preset, {}) for preset in PRESETS] + [
    ("classic", {"joker": True, "deck": 32}), ("bid", {"joker": True}), ("bid", {"double_deck": True}),
    ("knock", {"rubber": True, "game_target": 3}),
]
DECK_IDS = [f"{preset}-{'-'.join(map(str, kwargs)) or 'preset'}" for preset, kwargs in DECKS]


def _random_game(env: object, seed: int) -> list[np.ndarray]:
    """The frames of one AEC game of random legal moves, one per decision and one at the end."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    frames = []
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        frames.append(env.render())
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    frames.append(env.render())
    return frames


@pytest.mark.parametrize(("preset", "kwargs"), DECKS, ids=DECK_IDS)
def test_aec_draws_every_preset_the_same_way_twice(preset, kwargs):
    frames = [_random_game(euchre_env.env(rules=preset, render_mode="rgb_array", episode="hand", **kwargs), 3)
              for _ in range(2)]
    assert len(frames[0]) == len(frames[1]) > 5
    for a, b in zip(*frames):
        assert a.shape == (HEIGHT, WIDTH, 3) and a.dtype == np.uint8
        assert np.array_equal(a, b)
    assert len({f.tobytes() for f in frames[0]}) > len(frames[0]) // 2  # the picture follows the game


def _swap_hidden(state: GameState, seat: int) -> GameState | None:
    """A copy of ``state`` where two other seats have traded one card each (hand sizes kept); None when no two
    other hands hold different cards to trade."""
    others = [s for s in range(4) if s != seat and state.hands[s]]
    for i, a in enumerate(others):
        for b in others[i + 1:]:
            for card_a in state.hands[a]:
                card_b = next((c for c in state.hands[b] if c != card_a), None)
                if card_b is not None and card_a not in state.hands[b]:
                    twin = state.clone()
                    twin.hands[a][twin.hands[a].index(card_a)] = card_b
                    twin.hands[b][twin.hands[b].index(card_b)] = card_a
                    twin.hands[a].sort()
                    twin.hands[b].sort()
                    return twin
    return None


@pytest.mark.parametrize(("preset", "kwargs"), DECKS, ids=DECK_IDS)
def test_a_seat_sees_no_hidden_card(preset, kwargs):
    state = GameState(Rules.preset(preset, **kwargs), np.random.default_rng(11))
    rng = np.random.default_rng(5)
    checked = 0
    while not state.hand_over:
        seat = checked % 4
        twin = _swap_hidden(state, seat) if checked < 24 else None  # 24 decisions: a hand's play begun
        if twin is not None:
            assert np.array_equal(table_picture(state, seat), table_picture(twin, seat)), "a hidden card was drawn"
            assert np.array_equal(table_picture(state), table_picture(twin)), "an onlooker saw a hand"
            assert not np.array_equal(table_picture(state, ALL), table_picture(twin, ALL)), "the god view shows all"
            checked += 1
        state.apply(int(rng.choice(state.legal_actions())))
    assert checked >= 10
    # Once the hand is over every hand is shown, as the text table does (euchre_env.views.render.visible_hands).
    assert visible_hands(state, 0) == visible_hands(state, TABLE) == [list(hand) for hand in state.hands]


def test_aec_render_seat_hides_the_other_hands():
    """By default an onlooker's picture (no hand shown: nothing hidden unless asked); a seat's; the god view's."""
    views = {}
    for seat in (TABLE, ALL, 0, 1):
        env = euchre_env.env(render_mode="rgb_array", render_seat=seat)
        env.reset(seed=4)
        views[seat] = env.render()
        assert np.array_equal(views[seat], table_picture(env.game, seat))
    default = euchre_env.env(render_mode="rgb_array")
    default.reset(seed=4)
    assert np.array_equal(default.render(), views[TABLE])
    assert len({v.tobytes() for v in views.values()}) == 4
    text = euchre_env.env(render_mode="ansi")
    text.reset(seed=4)
    assert text.render().count("??") >= 4 * 5 - 1  # every hand face down (the dealer may hold six for a moment)


def test_aec_follows_pettingzoos_rgb_array_convention():
    env = euchre_env.env(rules="bid", render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    frame[:] = 0  # a new array each call: the caller may keep or change it
    assert env.render().any()


@pytest.mark.parametrize("preset", PRESETS)
def test_single_seat_pictures_and_text(preset):
    env = SingleSeatEnv(preset, opponents="rules", render_mode="rgb_array")
    env.reset(seed=2)
    first = env.render()
    assert first.shape == (HEIGHT, WIDTH, 3) and first.dtype == np.uint8
    assert np.array_equal(first, table_picture(env.state, env.acting_seat))
    text = SingleSeatEnv(preset, opponents="rules", render_mode="ansi")
    text.reset(seed=2)
    assert "??" in text.render()  # the opponents' hands are hidden


def test_single_seat_team_keeps_its_first_seat_at_the_bottom():
    env = SingleSeatEnv("knock", team=1, render_mode="rgb_array")
    god = SingleSeatEnv("knock", team=1, render_mode="rgb_array", render_seat=ALL)
    _, info = env.reset(seed=1)
    god.reset(seed=1)
    assert np.array_equal(env.render(), table_picture(env.state, info["seat"], bottom=1))
    assert np.array_equal(god.render(), table_picture(god.state, ALL, bottom=1))
    assert not np.array_equal(env.render(), god.render())


def test_gymnasium_checks_the_render_mode():
    env = gymnasium.make("euchre/SingleSeat-v0", render_mode="rgb_array")
    assert env.render_mode == "rgb_array"
    check_env(env.unwrapped)


def test_record_video_records_a_game(tmp_path):
    if not os.environ.get("CI"):
        pytest.importorskip("moviepy", reason="the render extra: pip install 'euchre-env[render]'")
    import imageio_ffmpeg
    from gymnasium.wrappers import RecordVideo

    env = gymnasium.make("euchre/SingleSeat-v0", rules="knock", episode="game", render_mode="rgb_array")
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True, disable_logger=True)
    obs, _ = env.reset(seed=0)
    steps, done = 0, False
    while not done:
        obs, _, terminated, truncated, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps, done = steps + 1, terminated or truncated
    env.close()
    (video,) = (tmp_path / "videos").glob("*.mp4")
    frames, _ = imageio_ffmpeg.count_frames_and_secs(str(video))
    assert frames == steps + 1  # a frame after reset and one after each step


@pytest.mark.parametrize("make", [lambda **kw: euchre_env.env(**kw), lambda **kw: SingleSeatEnv(**kw)],
                         ids=["aec", "single_seat"])
def test_without_pillow_the_env_names_the_extra(make, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'euchre-env\[render\]'"):
        make(render_mode="rgb_array")
    make(render_mode="ansi")  # text needs nothing more


def test_an_old_pillow_is_refused(monkeypatch):
    import PIL

    monkeypatch.setattr(PIL, "__version__", "9.5.0")
    with pytest.raises(ImportError, match=r"found Pillow 9\.5\.0"):
        SingleSeatEnv(render_mode="rgb_array")


@pytest.mark.parametrize(("make", "option"), [
    (lambda: euchre_env.env(render_mode="rgb"),
     "'render_mode' must be one of \\[None, 'ansi', 'human', 'rgb_array'\\]"),
    (lambda: SingleSeatEnv(render_mode="human"), "'render_mode' must be one of \\[None, 'ansi', 'rgb_array'\\]"),
    (lambda: SingleSeatEnv(render_seat=4), "'render_seat' must be one of \\['learner', 'table', 'all', 0, 1, 2, 3\\]"),
    (lambda: euchre_env.env(render_seat=None), "'render_seat' must be one of \\['table', 'all', 0, 1, 2, 3\\]"),
    (lambda: euchre_env.env(render_seat=True), "got True"),
], ids=["aec-mode", "single-seat-mode", "single-seat-seat", "aec-none", "aec-bool"])
def test_bad_render_options_name_what_is_allowed(make, option):
    with pytest.raises(ValueError, match=option):
        make()
