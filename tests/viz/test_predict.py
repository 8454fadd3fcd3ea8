"""Predict mode: the questions each step asks, how answers are judged (retry, reveal, score), and
the same behaviour in the ipywidgets player and the kernel-free page's data."""

import json
import re

import pytest

import tapeviz as tf
import tapeviz.viz as viz

viz.stop_watching()


pytestmark = pytest.mark.usefixtures("session_recorder")


from tapeviz.viz import frames, predict, render  # noqa: E402
from tapeviz.viz.trace import trace_of  # noqa: E402

needs_dot = pytest.mark.skipif(render.dot_binary() is None, reason="Graphviz `dot` program not installed")


def fanout_tape():
    """Lesson 7's expression: f = x*y + sin(x) at x = 2, y = 5 (two gradients meet at x)."""
    x = tf.Variable(2.0, name="x")
    y = tf.Variable(5.0, name="y")
    with tf.GradientTape() as tape:
        f = x * y + tf.sin(x)
    tape.gradient(f, [x, y])
    return tape


def square_tape():
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x**2
    tape.gradient(y, x)
    return tape


def asked(tape):
    fs, _view = frames.sweep_frames(trace_of(tape))
    return fs, [[(q["label"], q["cell"], q["answer"]) for q in f.get("ask", [])] for f in fs]


def test_each_step_asks_every_product_and_the_fanout_sum():
    fs, questions = asked(fanout_tape())
    cos2 = float(tf.cos(2.0).numpy())
    assert [f["kind"] for f in fs] == ["seed", "step", "step", "step", "done"]
    assert questions[0] == [] and questions[-1] == []
    assert [(cell, answer) for _l, cell, answer in questions[1]] == [("product", 1.0), ("product", 1.0)]
    assert [(cell, round(answer, 6)) for _l, cell, answer in questions[2]] == [("product", round(cos2, 6))]
    mul = questions[3]
    assert [label for label, _c, _a in mul] == [
        "d/dx: upstream \u00d7 local",
        "x collects: the running sum",
        "d/dy: upstream \u00d7 local",
    ]
    assert [cell for _l, cell, _a in mul] == ["product", "sum", "product"]
    assert mul[0][2] == 5.0 and mul[2][2] == 2.0
    assert mul[1][2] == pytest.approx(5.0 + cos2)  # the gradient already at x (cos 2) plus this step's 5


def test_x_times_x_asks_two_products_and_two_sums():
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as tape:
        y = x * x + x
    tape.gradient(y, x)
    _fs, questions = asked(tape)
    mul = questions[2]
    assert [(cell, answer) for _l, cell, answer in mul] == [
        ("product", 3.0),
        ("sum", 4.0),
        ("product", 3.0),
        ("sum", 7.0),
    ]


def test_an_array_gradient_asks_nothing():
    x = tf.Variable([1.0, 2.0], name="x")
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    _fs, questions = asked(tape)
    assert all(q == [] for q in questions)


def questions_of(tape, step):
    fs, _view = frames.sweep_frames(trace_of(tape))
    return fs[step]["ask"]


def test_a_wrong_product_names_the_factor_that_looks_off():
    (question,) = questions_of(square_tape(), 1)  # d(x**2)/dx at 3: 1 x 6 = 6
    status, said = predict.judge(question, "5", 0)
    assert status == "retry" and "local derivative of 5" in said and "Try once more" in said
    assert "6" not in said, "a retry must not give the answer away"
    assert predict.judge(question, "7", 0)[1].count("added") == 1  # 1 + 6: added instead of multiplied
    assert "sign" in predict.judge(question, "-6", 0)[1]
    assert "upstream gradient alone" in predict.judge(question, "1", 0)[1]  # the upstream 1, not multiplied


def test_forgetting_the_gradient_that_already_arrived_is_named():
    _product, running_sum, _other = questions_of(fanout_tape(), 3)
    status, said = predict.judge(running_sum, "5", 0)
    assert status == "retry" and "forgot to add the gradient that already arrived at x" in said
    assert "4.58" not in said
    status, said = predict.judge(running_sum, "-2.08", 0)
    assert status == "retry" and "added" in said  # multiplied instead of adding


def test_retry_then_reveal_and_a_tolerance_for_rounded_numbers():
    _product, running_sum, _other = questions_of(fanout_tape(), 3)
    assert predict.judge(running_sum, "4.584", 0) == ("right", "\u2714 right first time")
    assert predict.judge(running_sum, " 4.58 ", 0)[0] == "right"  # -0.4161 + 5 from the card's digits
    assert predict.judge(running_sum, "4.57", 0)[0] == "retry"
    assert predict.judge(running_sum, "4.584", 1) == ("right", "\u2714 right on the second try")
    status, said = predict.judge(running_sum, "3", 1)
    assert status == "revealed" and said == "\u2718 not quite: it is -0.4161 + 5 = 4.584."
    for typed in ("", "four", "0x10", "1_0", "inf", "nan"):
        assert predict.judge(running_sum, typed, 0)[0] == "unreadable", typed


def test_quiz_asks_in_order_retries_once_reveals_and_keeps_the_score():
    fs, _view = frames.sweep_frames(trace_of(fanout_tape()))
    quiz = predict.Quiz(fs)
    assert quiz.done(0) and quiz.current(3) == 0
    assert quiz.pending(3) == {(0, "product"): 1, (0, "sum"): 2, (1, "product"): 3}
    assert quiz.answer(3, "5")["status"] == "right"
    assert quiz.pending(3) == {(0, "sum"): 2, (1, "product"): 3}
    assert quiz.answer(3, "x")["status"] == "unreadable" and quiz.current(3) == 1  # no try used
    assert quiz.answer(3, "5")["status"] == "retry" and quiz.current(3) == 1
    assert quiz.answer(3, "6")["status"] == "revealed" and quiz.current(3) == 2
    assert quiz.score() == (1, 2) and quiz.score_text() == "score: 1 of 2 right first time"
    assert quiz.answer(3, "1")["status"] == "retry"
    assert quiz.answer(3, "2")["status"] == "right" and quiz.done(3) and quiz.pending(3) == {}
    assert quiz.answer(3, "2") is None  # nothing left to ask on this step
    assert quiz.score_text() == "score: 1 of 3 right first time"
    quiz.reset()
    assert quiz.score() == (0, 0) and quiz.current(3) == 0


@needs_dot
def test_widget_retries_then_says_right_and_counts():
    pytest.importorskip("ipywidgets")
    player = viz.player(fanout_tape(), predict=True)
    parts = (player.widget, player._parts)[1]

    def answer(typed):
        parts["guess"].value = typed
        parts["check"].click()
        return parts["asking"].children

    for _ in range(3):
        parts["forward"].click()
    assert parts["slider"].value == 1, "the player waits for step 1's answers"
    for _ in range(2):
        answer("1")
    parts["forward"].click()
    answer("-0.4161")
    parts["forward"].click()
    assert parts["slider"].value == 3 and "your turn" in parts["caption"].value
    assert "? (1)" in parts["card"].value and "? (2)" in parts["card"].value and "? (3)" in parts["card"].value
    assert "dx = 4.584" not in parts["picture"].value
    answer("5")
    rows = answer("5")  # the product alone, at the running sum
    assert len(rows) == 3 and "forgot to add" in rows[1].children[-1].value  # two questions, the score
    assert "? (2)" in parts["card"].value and "1 \u00d7 5 = 5" in parts["card"].value
    rows = answer("4.584")
    assert "right on the second try" in rows[1].children[-1].value
    assert "-0.4161 + 5 = 4.584" in parts["card"].value
    parts["forward"].click()
    assert parts["slider"].value == 3, "one question is left on this step"
    answer("2")
    assert parts["score"].value.endswith("score: 5 of 6 right first time</span>")
    assert "dx = 4.584" in parts["picture"].value
    parts["forward"].click()
    assert parts["slider"].value == 4
    parts["predict"].value = False
    assert parts["asking"].children == ()


@needs_dot
def test_kernel_free_page_carries_the_same_questions_and_rules():
    player = viz.player(fanout_tape(), predict=True)
    page = player.to_html()
    shipped = json.loads(re.search(r'id="tapeviz-frames">(.*?)</script>', page).group(1))
    rules = json.loads(re.search(r'id="tapeviz-predict">(.*?)</script>', page).group(1))
    texts = rules.pop("texts")
    assert rules == json.loads(json.dumps(predict.rules()))
    for frame, sent in zip(player.frames, shipped):
        want = frame.get("ask", [])
        got = sent.get("ask", [])
        assert [(q["label"], q["cell"], q["row"], q["reveal"]) for q in got] == [
            (q["label"], q["cell"], q["row"], q["reveal"]) for q in want
        ]
        assert [q["answer"] for q in got] == pytest.approx([q["answer"] for q in want], rel=1e-6)
        # the messages travel once, each question pointing at its own
        assert [texts[q["otherwise"]] for q in got] == [q["otherwise"] for q in want]
        assert [[texts[i] for _v, i in q["hints"]] for q in got] == [[m for _v, m in q["hints"]] for q in want]
    assert len(texts) == len(set(texts))
    assert '<div class="tv-ask"></div>' in page and '<div class="tv-score"></div>' in page
