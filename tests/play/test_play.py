"""`make demo`: a whole game between agents, printed; bad specs end with a one-line error."""

from __future__ import annotations

import pytest

from euchre_env.play.demo import main, play_game


@pytest.mark.parametrize("rules", ["knock", "classic", "multiplayer"])
def test_demo_game_reaches_the_target(rules):
    scores = play_game(rules, seed=3, players=["rules", "random", "rules", "random"], verbose=False)
    assert max(scores) >= 10 > min(scores)


def test_demo_prints_the_table_and_the_winner(capsys):
    main(["--rules", "knock", "--seed", "7"])
    out = capsys.readouterr().out
    assert "dealer: seat" in out and "up-card" in out and "final score" in out and "wins" in out


def test_demo_rejects_an_unknown_agent(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--players", "rules", "nobody", "rules", "random"])
    assert exit_info.value.code == 2
    assert "unknown agent spec 'nobody'" in capsys.readouterr().err
