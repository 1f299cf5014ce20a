"""Per-student parameters and grading feedback (:mod:`dpolearn.coursework`)."""
from __future__ import annotations

import copy

import pytest

from dpolearn.coursework import (
    IDENTITY_VARIABLE,
    assert_all_close,
    assert_close,
    draw,
    fingerprint,
    make_variant,
    student_call,
    trusted_params,
    verify,
)

SPEC = {"q1": {"k": list(range(10, 1000)), "delta": [1e-5, 1e-6, 1e-7]},
        "q2": {"n": [50, 100, 200]}}
KEY = "term-key-for-tests"


def test_draw_is_deterministic_and_depends_on_student_and_key():
    a = draw(KEY, "alice", "set1", SPEC)
    assert a == draw(KEY, "alice", "set1", SPEC)
    # 990 choices of k: two identities (or keys) give the same k with probability 1/990 each
    assert a["q1"]["k"] != draw(KEY, "bob", "set1", SPEC)["q1"]["k"]
    assert a["q1"]["k"] != draw("another-key", "alice", "set1", SPEC)["q1"]["k"]
    assert all(a[q][p] in SPEC[q][p] for q in SPEC for p in SPEC[q])


def test_draw_spreads_over_the_choices():
    # 300 students, 3 choices: each count is Binomial(300, 1/3), sd 8.2; 100 +- 40 is 4.9 sd
    counts = {n: 0 for n in SPEC["q2"]["n"]}
    for i in range(300):
        counts[draw(KEY, f"s{i}", "set1", SPEC)["q2"]["n"]] += 1
    assert all(60 <= c <= 140 for c in counts.values()), counts


@pytest.mark.parametrize("bad", [None, "", 3])
def test_draw_rejects_a_bad_key(bad):
    with pytest.raises(ValueError, match="term_key"):
        draw(bad, "alice", "set1", SPEC)


def test_draw_rejects_an_empty_choice_list():
    with pytest.raises(ValueError, match=r"spec\['q1'\]\['k'\]"):
        draw(KEY, "alice", "set1", {"q1": {"k": []}})


def test_signature_detects_edits_and_other_keys(monkeypatch):
    monkeypatch.delenv(IDENTITY_VARIABLE, raising=False)
    variant = make_variant(KEY, "alice", "set1", SPEC)
    assert verify(variant, KEY)
    assert not verify(variant, "another-key")
    edited = copy.deepcopy(variant)
    edited["params"]["q2"]["n"] = 50 if variant["params"]["q2"]["n"] != 50 else 100
    assert not verify(edited, KEY)
    moved = dict(variant, student="bob")
    assert not verify(moved, KEY)
    assert not verify(None, KEY) and not verify({"student": "alice"}, KEY)
    issued = {"": fingerprint(make_variant(KEY, "", "set1", SPEC)), "alice": fingerprint(variant)}
    with pytest.raises(AssertionError, match="tampered"):
        trusted_params(edited, issued, "q2")
    with pytest.raises(AssertionError, match="tampered"):
        trusted_params(dict(variant, student="carol"), issued, "q2")  # never issued
    assert trusted_params(variant, issued, "q2") == variant["params"]["q2"]


def test_trusted_params_refuses_another_students_notebook(monkeypatch):
    variant = make_variant(KEY, "alice", "set1", SPEC)
    practice = make_variant(KEY, "", "set1", SPEC)
    issued = {"": fingerprint(practice), "alice": fingerprint(variant),
              "bob": fingerprint(make_variant(KEY, "bob", "set1", SPEC))}
    monkeypatch.setenv(IDENTITY_VARIABLE, "bob")
    with pytest.raises(AssertionError, match="another student"):
        trusted_params(variant, issued, "q1")
    with pytest.raises(AssertionError, match="another student"):
        trusted_params(practice, issued, "q1")  # the public practice variant is no one's
    monkeypatch.setenv(IDENTITY_VARIABLE, "alice")
    assert trusted_params(variant, issued, "q1") == variant["params"]["q1"]
    # a term without a roster: one variant, anyone may submit it
    assert trusted_params(practice, {"": fingerprint(practice)}, "q1") == practice["params"]["q1"]


def test_assert_close_message_shows_the_value_and_the_form_not_the_answer():
    assert_close(0.1 + 1e-17, 0.1, abs_tol=1e-10, what="x", form="the root")
    with pytest.raises(AssertionError) as info:
        assert_close(0.125, 0.1234567, rel=1e-6, what="best_eps0(10)", form="the larger of two")
    message = str(info.value)
    assert "best_eps0(10)" in message and "0.125" in message and "the larger of two" in message
    assert "0.1234567" not in message and "1e-06 relative" in message
    with pytest.raises(AssertionError, match="expected a number"):
        assert_close(None, 1.0, rel=1e-6, what="x", form="f")
    with pytest.raises(AssertionError, match="finite"):
        assert_close(float("nan"), 1.0, rel=1e-6, what="x", form="f")
    with pytest.raises(ValueError, match="tolerance"):
        assert_close(1.0, 1.0, what="x", form="f")


def test_student_call_reports_the_students_exception_and_line():
    def answer(k):
        return 1 / (k - k)

    assert student_call(lambda k: k + 1, 1, what="f(1)") == 2
    with pytest.raises(AssertionError) as info:
        student_call(answer, 3, what="answer(3)")
    message = str(info.value)
    assert "answer(3) raised ZeroDivisionError" in message
    assert "return 1 / (k - k)" in message
    with pytest.raises(AssertionError, match="expected a function"):
        student_call(None, what="g()")


STUDY = {"alg3": (61.83, 4.217), "frozen": (58.91, 3.904), "best": "Lazy-DP-TS", 8: 5.2817}


def test_assert_all_close_accepts_numbers_rounded_to_three_figures():
    reported = {"alg3": (61.8, 4.22), "frozen": [58.9, 3.9], "best": "Lazy-DP-TS", 8: 5.28}
    assert_all_close(reported, STUDY, rel=5e-3, what="reported", form="your study's numbers")
    assert_all_close({"gap": 0.0}, {"gap": 1e-16}, rel=5e-3, abs_tol=1e-12, what="r", form="f")


@pytest.mark.parametrize(("reported", "shown", "where"), [
    ({"alg3": (70.1, 4.22), "frozen": (58.9, 3.9), "best": "Lazy-DP-TS", 8: 5.28}, "70.1",
     "reported['alg3'][0]"),
    ({"alg3": (61.8, 4.22), "frozen": (58.9, 3.9), "best": "DP-SE", 8: 5.28}, "'DP-SE'",
     "reported['best']"),
    ({"alg3": (61.8,), "frozen": (58.9, 3.9), "best": "Lazy-DP-TS", 8: 5.28}, "(61.8,)",
     "reported['alg3']: expected 2 entries"),
    ({"alg3": (61.8, 4.22), "frozen": (58.9, 3.9), "best": "Lazy-DP-TS", 8: None}, "None",
     "reported[8]: expected a number"),
])
def test_assert_all_close_names_the_entry_and_shows_the_students_value(reported, shown, where):
    with pytest.raises(AssertionError) as info:
        assert_all_close(reported, STUDY, rel=5e-3, what="reported", form="your study's numbers")
    message = str(info.value)
    assert where in message and shown in message, message
    # never the expected value: neither the study's numbers nor its label
    for hidden in ("61.83", "4.217", "58.91", "Lazy-DP-TS"):
        assert hidden not in message or hidden in repr(reported), message


def test_assert_all_close_checks_the_keys_and_the_kind():
    with pytest.raises(AssertionError, match="your keys 'alg3' are not 'alg3', 'frozen'"):
        assert_all_close({"alg3": 1.0}, {"alg3": 1.0, "frozen": 2.0}, rel=1e-9, what="s",
                         form="f")
    with pytest.raises(AssertionError, match="s: expected a dict"):
        assert_all_close([1.0], {"alg3": 1.0}, rel=1e-9, what="s", form="f")


def test_assert_all_close_rejects_bad_arguments():
    with pytest.raises(TypeError, match="expected must be a dict"):
        assert_all_close({}, [1.0], rel=1e-9, what="s", form="f")
    with pytest.raises(TypeError, match="what and form"):
        assert_all_close({}, {}, rel=1e-9, what=None, form="f")
    with pytest.raises(ValueError, match="tolerance"):
        assert_all_close({}, {}, what="s", form="f")
