"""Checks for the book's problem sets: per-student parameters and feedback a student can use.

The problem sets give every student their own parameters. The course's generator draws them
from the student's identity and a secret term key and writes them into the student's notebook
as ``VARIANT = {"student": ..., "set": ..., "params": {...}, "signature": ...}``, where the
signature is an HMAC-SHA256 of the rest under the term key. Without the key nobody can make a
valid signature, so a grader holding the key can tell

* an untouched variant (the signature matches),
* edited parameters (it does not: "tampered"), and
* someone else's notebook (it matches, but for another student).

The hidden checks themselves do not hold the key (a student's code runs in the same process as
the checks and might read them): they hold the :func:`fingerprint` of every variant issued this
term, which reveals no key and lets no one make a new variant, and call :func:`trusted_params`
before anything else. They then compare
the student's values with :func:`assert_close`, whose tolerance each question states, and a
simulation study's dictionary of numbers with :func:`assert_all_close` (the numbers a student
reports against the study the grader re-ran, and that study against the package's own run).
:func:`student_call` runs a student's function so that an exception it raises reaches the
feedback with the student's own line. This module needs only the standard library, so it runs
wherever the package is installed (a grading image, Colab, JupyterLite).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import math
import numbers
import os
import traceback
from pathlib import Path

__all__ = ["draw", "sign", "make_variant", "verify", "fingerprint", "grader_identity",
           "trusted_params",
           "assert_close", "assert_all_close", "student_call", "IDENTITY_VARIABLE",
           "GRADESCOPE_METADATA"]

#: Environment variable through which a grader names the student a submission belongs to.
IDENTITY_VARIABLE = "DPOLEARN_STUDENT"
#: Where Gradescope's autograder image describes the submission (its submitters' e-mails).
GRADESCOPE_METADATA = Path("/autograder/submission_metadata.json")


def _check_key(term_key) -> bytes:
    if not isinstance(term_key, str) or not term_key:
        raise ValueError(f"term_key must be a non-empty string, got {term_key!r}")
    return term_key.encode()


def draw(term_key: str, student: str, set_name: str, spec: dict) -> dict:
    """The parameters of one student: ``spec`` maps question -> parameter -> list of choices;
    each choice is picked by an HMAC of (set, question, parameter, student) under the key."""
    key = _check_key(term_key)
    if not isinstance(student, str):
        raise TypeError(f"student must be a string, got {student!r}")
    if not isinstance(spec, dict):
        raise TypeError(f"spec must be a dict of questions, got {spec!r}")
    params: dict = {}
    for question, choices_by_name in spec.items():
        params[question] = {}
        for name, choices in choices_by_name.items():
            if not isinstance(choices, list) or not choices:
                raise ValueError(f"spec[{question!r}][{name!r}] must be a non-empty list, "
                                 f"got {choices!r}")
            message = f"{set_name}/{question}/{name}/{student}".encode()
            digest = hmac.new(key, message, hashlib.sha256).digest()
            params[question][name] = choices[int.from_bytes(digest[:8], "big") % len(choices)]
    return params


def _payload(student: str, set_name: str, params: dict) -> bytes:
    return json.dumps({"student": student, "set": set_name, "params": params},
                      sort_keys=True, separators=(",", ":")).encode()


def sign(term_key: str, student: str, set_name: str, params: dict) -> str:
    """HMAC-SHA256 (hex) of the student, the set and the parameters under the term key."""
    return hmac.new(_check_key(term_key), _payload(student, set_name, params),
                    hashlib.sha256).hexdigest()


def make_variant(term_key: str, student: str, set_name: str, spec: dict) -> dict:
    """The signed variant of one student (what their notebook stores)."""
    params = draw(term_key, student, set_name, spec)
    return {"student": student, "set": set_name, "params": params,
            "signature": sign(term_key, student, set_name, params)}


def verify(variant, term_key: str) -> bool:
    """True when ``variant``'s signature matches its student, set and parameters."""
    if not isinstance(variant, dict) or not {"student", "set", "params", "signature"} <= set(
            variant):
        return False
    expected = sign(term_key, variant["student"], variant["set"], variant["params"])
    return hmac.compare_digest(expected, str(variant["signature"]))


def fingerprint(variant) -> str:
    """A short hash (16 hex digits) of a variant's student, set and parameters (no key)."""
    if not isinstance(variant, dict) or not {"student", "set", "params"} <= set(variant):
        raise TypeError(f"variant must be a dict with student, set and params, got {variant!r}")
    payload = _payload(variant["student"], variant["set"], variant["params"])
    return hashlib.sha256(payload).hexdigest()[:16]


def grader_identity(default: str) -> str:
    """Who the grader is grading: :data:`IDENTITY_VARIABLE` if set (``make grade``), else the
    first submitter in Gradescope's metadata, else ``default`` (the notebook's own claim, as
    when an instructor runs ``otter run`` on one file)."""
    if not isinstance(default, str):
        raise TypeError(f"default must be a str, got {default!r}")
    named = os.environ.get(IDENTITY_VARIABLE)
    if named is not None:
        return named
    if GRADESCOPE_METADATA.is_file():
        users = json.loads(GRADESCOPE_METADATA.read_text()).get("users") or [{}]
        return str(users[0].get("email", default))
    return default


def trusted_params(variant, issued: dict, question: str) -> dict:
    """The parameters of ``question`` for the student being graded, or AssertionError when the
    notebook's variant was edited or belongs to another student. ``issued`` maps every student
    of the term to the :func:`fingerprint` of their variant; a term without a roster has the
    one anonymous student ``""``, and then any identity may use it."""
    if not isinstance(issued, dict):
        raise TypeError(f"issued must be a dict student -> fingerprint, got {issued!r}")
    tampered = ("the parameters in this notebook (VARIANT) were edited or are missing: "
                "they are reported as tampered; ask for a fresh copy of your notebook.")
    assert isinstance(variant, dict) and variant.get("student") in issued, tampered
    try:
        assert fingerprint(variant) == issued[variant["student"]], tampered
    except TypeError:
        raise AssertionError(tampered) from None
    identity = grader_identity(variant["student"])
    assert list(issued) == [""] or identity == variant["student"], (
        f"this notebook was generated for another student ({variant['student']!r}), "
        f"not for {identity!r}.")
    assert question in variant["params"], f"this notebook has no parameters for {question}"
    return variant["params"][question]


def _check_tolerance(rel, abs_tol) -> None:
    if rel < 0 or abs_tol < 0 or (rel == 0 and abs_tol == 0):
        raise ValueError(f"need a tolerance: rel={rel!r}, abs_tol={abs_tol!r}")


def assert_close(value, expected: float, *, rel: float = 0.0, abs_tol: float = 0.0,
                 what: str, form: str) -> None:
    """Assert ``value`` is a finite number within ``rel`` (relative) or ``abs_tol`` (absolute)
    of ``expected``; the message names ``what`` was checked, shows the student's value and the
    expected ``form`` (never the expected value itself)."""
    _check_tolerance(rel, abs_tol)
    tol = " or ".join(t for t in (f"{rel:g} relative" if rel else "",
                                  f"{abs_tol:g} absolute" if abs_tol else "") if t)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise AssertionError(f"{what}: expected a number ({form}), got {value!r}") from None
    assert math.isfinite(number), f"{what}: expected a finite number ({form}), got {value!r}"
    assert math.isclose(number, expected, rel_tol=rel, abs_tol=abs_tol), (
        f"{what}: your value {value!r} is not {form} (checked to {tol} tolerance).")


def assert_all_close(values, expected: dict, *, rel: float = 0.0, abs_tol: float = 0.0,
                     what: str, form: str) -> None:
    """Assert ``values`` is a dict with the keys of ``expected`` whose entries match it: a
    number within ``rel`` or ``abs_tol`` (as :func:`assert_close`), a tuple or list entry by
    entry, anything else (a label) equal. A simulation study stores its numbers so; the grader
    compares the numbers a student reports with the study it re-ran, and the study with the
    package's run of the same seeded study. Messages name the entry checked (``what[key]``) and
    show the student's value and the expected ``form``, never an expected value."""
    if not isinstance(expected, dict):
        raise TypeError(f"expected must be a dict, got {expected!r}")
    if not isinstance(what, str) or not isinstance(form, str):
        raise TypeError(f"what and form must be str, got {what!r} and {form!r}")
    _check_tolerance(rel, abs_tol)
    assert isinstance(values, dict), f"{what}: expected a dict ({form}), got {values!r}"
    mine, keys = sorted(map(repr, values)), sorted(map(repr, expected))
    assert mine == keys, f"{what}: your keys {', '.join(mine)} are not {', '.join(keys)}"
    for key, reference in expected.items():
        _assert_entry(values[key], reference, rel, abs_tol, f"{what}[{key!r}]", form)


def _assert_entry(value, reference, rel: float, abs_tol: float, what: str, form: str) -> None:
    """One entry of :func:`assert_all_close`."""
    if isinstance(reference, numbers.Real) and not isinstance(reference, bool):
        assert_close(value, float(reference), rel=rel, abs_tol=abs_tol, what=what, form=form)
    elif isinstance(reference, (tuple, list)):
        assert isinstance(value, (tuple, list)) and len(value) == len(reference), (
            f"{what}: expected {len(reference)} entries ({form}), got {value!r}")
        for i, (item, ref) in enumerate(zip(value, reference)):
            _assert_entry(item, ref, rel, abs_tol, f"{what}[{i}]", form)
    else:
        assert value == reference, f"{what}: your value {value!r} is not {form}."


def student_call(function, *args, what: str, **kwargs):
    """Call a student's ``function``; if it raises, fail with the exception and the student's
    own lines of the traceback, so that the feedback shows what went wrong where."""
    if not isinstance(what, str):
        raise TypeError(f"what must be a str, got {what!r}")
    if not callable(function):
        raise AssertionError(f"{what}: expected a function, got {function!r}")
    try:
        return function(*args, **kwargs)
    except Exception as error:  # a student's error becomes feedback, never a grader crash
        frames = traceback.extract_tb(error.__traceback__)[1:]
        lines = "".join(traceback.format_list(frames[-3:]))
        raise AssertionError(f"{what} raised {type(error).__name__}: {error}\n{lines}") from None
