"""The lessons' exercises: questions that apply a lesson's rule to new numbers, answers the
package computes (so nbval keeps them honest), hidden until the reader asks.

One format in every lesson: a cell ``exercise("01", 2, my_answer=None)`` shows the question;
the reader puts a number in place of ``None`` and runs it to get a verdict; the answer and why
sit in a collapsed "Show the answer" (an HTML ``<details>``), so no stored output shows it before
it is asked for, in JupyterLab, a notebook viewer or the static report.

* :mod:`~kipviz.apps.exercises.catalogue`: every exercise (:data:`EXERCISES`) and how its
  answer is computed, with the package's own rule functions.
* :mod:`~kipviz.apps.exercises.card`: :func:`exercise` (the card a lesson shows), :func:`check`
  (a verdict on a number), :func:`answer` and :func:`question`.

``print(check("04", 1, 100))`` prints "Right: 100 s. 1 GB over T - R x IN = 40 - 3 x 10 MB/s =
10 MB/s: 100 s, not the KIP's 33 s."

May import: every layer below :mod:`kipviz.apps` (the answers use the rules, scenarios and the
lessons' dashboard scenarios).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "card": ["Card", "Verdict", "answer", "check", "exercise", "question"],
    "catalogue": ["EXERCISES", "Exercise", "exercises_for"],
})
