"""The one scale note every chapter prints at its top (``dpolearn.experiments.scale_note``)."""
from __future__ import annotations

import pytest

from dpolearn import experiments


@pytest.fixture
def restore_scale():
    yield
    experiments.set_scale(None)


def test_quick_note_says_how_to_switch_in_short_lines(restore_scale):
    experiments.set_scale("quick")
    note = experiments.scale_note()
    assert note.startswith("Experiments on this page run at quick scale")
    assert 'dpl.experiments.set_scale("paper")' in note and "DPOLEARN_SCALE=paper" in note
    assert max(map(len, note.splitlines())) <= 72          # fits the output box at 1280 px
    narrow = experiments.scale_note(width=50)
    assert max(map(len, narrow.splitlines())) <= 50
    assert " ".join(narrow.split()) == " ".join(note.split())     # same words, other breaks


def test_note_names_the_command_of_the_chapters_experiment(restore_scale):
    experiments.set_scale("quick")
    note = " ".join(experiments.scale_note("audit-table").split())
    assert note.endswith("or run `python -m dpolearn run audit-table --scale paper`.")


def test_paper_note_is_one_sentence(restore_scale):
    experiments.set_scale("paper")
    assert " ".join(experiments.scale_note().split()) == (
        "Experiments on this page run at paper scale: the papers' horizons and runs.")


@pytest.mark.parametrize("kwargs, error, match", [
    ({"experiment": "no-such-experiment"}, ValueError, "experiment id must be one of"),
    ({"width": 10}, ValueError, "width must be an int >= 40, got 10"),
    ({"width": True}, ValueError, "width must be an int >= 40, got True"),
])
def test_bad_input_is_refused(kwargs, error, match):
    with pytest.raises(error, match=match):
        experiments.scale_note(**kwargs)
