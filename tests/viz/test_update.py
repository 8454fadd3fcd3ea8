"""The optimizer's step on the hooks (optimizer_step), record_update, and the training-step player."""

import json
import math
import re

import numpy as np
import pytest

import tapeviz as tf
import tapeviz.viz as viz
from tapeviz.viz import card as cards
from tapeviz.viz import fold, render, update, view
from tapeviz.viz import legend as legends

viz.stop_watching()  # on only during these tests (see tests/viz/test_player.py)


pytestmark = pytest.mark.usefixtures("session_recorder")


needs_dot = pytest.mark.skipif(render.dot_binary() is None, reason="Graphviz `dot` program not installed")


def _data():
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, size=(32, 1)).astype("float32")
    return tf.constant(xs), tf.constant(3.0 * xs + 2.0)


def _model():
    tf.random.set_seed(0)
    return tf.keras.Sequential(
        [tf.keras.layers.Dense(2, activation="tanh", name="hidden"), tf.keras.layers.Dense(1, name="out")],
        name="model",
    )


def _step(model, optimizer, xs, ys, clip_norm=None):
    with tf.GradientTape() as tape:
        predictions = model(xs)
        with tf.name_scope("loss"):
            loss = tf.reduce_mean((ys - predictions) ** 2)
    gradients = tape.gradient(loss, model.trainable_variables)
    if clip_norm is not None:
        gradients, _ = tf.clip_by_global_norm(gradients, clip_norm)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    return tape, gradients


def test_optimizer_step_is_heard_before_any_variable_changes():
    w = tf.Variable([1.0, 2.0], name="w")
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.1, global_clipnorm=1.0)
    heard = []

    def listen(event):
        if event.kind == "optimizer_step":
            heard.append(("step", w.numpy().copy(), event))
        elif event.kind == "variable_assigned":
            heard.append(("assigned", event.variable, None))

    with tf.events.listening(listen):
        optimizer.apply_gradients([(tf.constant([3.0, 4.0]), w)])
    kind, before, event = heard[0]
    assert kind == "step" and np.array_equal(before, [1.0, 2.0])  # nothing had changed yet
    assert event.optimizer is optimizer and event.variables == (w,) and event.step == 1
    assert math.isclose(event.learning_rate, 0.1, rel_tol=1e-6)
    # the gradients the update uses: after the optimizer's own clipping (norm 5 -> 1)
    np.testing.assert_allclose(event.gradients[0], [0.6, 0.8], rtol=1e-6)
    assigned = [v for k, v, _ in heard[1:] if k == "assigned"]
    m, v = optimizer.get_slot(w, "m"), optimizer.get_slot(w, "v")
    assert assigned == [m, v, w, optimizer.iterations]  # slots, the variable, then the count


def test_no_optimizer_step_event_is_built_without_a_listener(monkeypatch):
    viz.stop_watching()
    with tf.events.silenced():

        def boom(*args):
            raise AssertionError("built with nobody listening")

        monkeypatch.setattr(tf.events, "OptimizerStep", boom)
        w = tf.Variable(1.0)
        tf.keras.optimizers.SGD(0.1).apply_gradients([(tf.constant(2.0), w)])
        assert math.isclose(float(w.numpy()), 0.8, rel_tol=1e-6)


def test_record_update_keeps_adam_before_and_after():
    xs, ys = _data()
    model, adam = _model(), tf.keras.optimizers.Adam(learning_rate=0.05)
    _step(model, adam, xs, ys)  # a step before, so m and v are not zero
    before = [v.numpy().copy() for v in model.trainable_variables]
    m_before = [adam.get_slot(v, "m").numpy().copy() for v in model.trainable_variables]
    with viz.record_update() as record:
        _tape, used = _step(model, adam, xs, ys)
    step = record.last
    assert step["number"] == 2 and step["optimizer"] is adam
    for row, variable, old, m_old, g in zip(step["variables"], model.trainable_variables, before, m_before, used):
        assert row["variable"] is variable
        np.testing.assert_array_equal(row["before"], old)
        np.testing.assert_array_equal(row["after"], variable.numpy())
        np.testing.assert_array_equal(row["slots"]["m"]["before"], m_old)
        np.testing.assert_array_equal(row["slots"]["m"]["after"], adam.get_slot(variable, "m").numpy())
        np.testing.assert_array_equal(row["slots"]["v"]["after"], adam.get_slot(variable, "v").numpy())
        np.testing.assert_allclose(row["gradient"], g.numpy(), rtol=1e-6)
        np.testing.assert_allclose(row["raw"], g.numpy(), rtol=1e-6)  # no clipping here: the tape's own
        # Adam's first moment, from what was heard
        np.testing.assert_allclose(row["slots"]["m"]["after"], 0.9 * m_old + 0.1 * g.numpy(), rtol=1e-5, atol=1e-7)
    assert update.scaling(step)["kind"] == "same"
    # nothing is heard after the block
    _step(model, adam, xs, ys)
    assert len(record.steps) == 1


def test_clipping_by_the_global_norm_is_found_as_one_scale():
    xs, ys = _data()
    model, sgd = _model(), tf.keras.optimizers.SGD(learning_rate=0.1)
    with viz.record_update() as record:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((ys - model(xs)) ** 2)
        gradients = tape.gradient(loss, model.trainable_variables)
        clipped, norm = tf.clip_by_global_norm(gradients, 0.5)
        sgd.apply_gradients(zip(clipped, model.trainable_variables))
    found = update.scaling(record.last)
    assert found["kind"] == "scaled" and float(norm.numpy()) > 0.5
    assert math.isclose(found["before"], float(norm.numpy()), rel_tol=1e-5)
    assert math.isclose(found["after"], 0.5, rel_tol=1e-5)
    assert math.isclose(found["scale"], 0.5 / float(norm.numpy()), rel_tol=1e-5)
    card = update.clip_card(record.last, found, lambda v: v.name, "loss")
    assert card["rows"][0]["value"] == f"{float(norm.numpy()):.4g}"
    assert "clip_by_global_norm(gradients, 0.5)" in update.clip_caption(found)


def test_a_record_hears_only_its_own_thread():
    import threading

    w = tf.Variable(1.0)
    with viz.record_update() as record:
        other = threading.Thread(target=lambda: tf.keras.optimizers.SGD(0.1).apply_gradients([(tf.constant(1.0), w)]))
        other.start()
        other.join()
    assert record.steps == [] and math.isclose(float(w.numpy()), 0.9, rel_tol=1e-6)


def test_a_change_that_is_not_one_scale_is_called_changed():
    a, b = tf.Variable([1.0, 2.0]), tf.Variable(3.0)
    with viz.record_update() as record:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(a * a) + b * b
        ga, gb = tape.gradient(loss, [a, b])
        tf.keras.optimizers.SGD(0.1).apply_gradients([(ga * 2.0, a), (gb, b)])
    assert update.scaling(record.last)["kind"] == "changed"


def test_adam_card_rows_use_the_recorded_numbers():
    xs, ys = _data()
    model, adam = _model(), tf.keras.optimizers.Adam(learning_rate=0.05)
    with viz.record_update() as record:
        _step(model, adam, xs, ys)
    step = record.last
    row = step["variables"][-1]  # the output bias: one number
    rows = {r["what"]: r for r in update.adam_rows(step, row, "bias")}
    alpha = 0.05 * math.sqrt(1 - 0.999) / (1 - 0.9)
    assert rows["\u03b1"]["value"] == f"{alpha:.4g}"
    moved = float(row["before"][0] - row["after"][0])
    assert rows["step"]["value"] == f"[{moved:.4g}]"
    # the first step of Adam moves every weight by about the learning rate
    assert math.isclose(abs(moved), 0.05, rel_tol=1e-3)
    assert rows["bias"]["value"] == f"[{float(row['after'][0]):.4g}]"


def test_other_optimizers_get_slots_before_and_after():
    w = tf.Variable([1.0, -1.0], name="w")
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.5, momentum=0.9)
    with viz.record_update() as record:
        optimizer.apply_gradients([(tf.constant([1.0, 2.0]), w)])
    step = record.last
    assert not update.is_adam(optimizer)
    rows = update.generic_rows(step, step["variables"][0], "w")
    assert [r["what"] for r in rows][-2:] == ["step", "w"]
    assert rows[-1]["value"] == "[0.5, -2]" and rows[-2]["value"] == "[0.5, 1]"


def test_update_frames_refuse_a_record_with_no_step():
    with viz.record_update() as record:
        pass
    with pytest.raises(ValueError, match="record_update"):
        update.update_frames(record, lambda v: None, lambda v: "w")


def test_player_refuses_update_with_tangents_or_recording():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(ValueError, match="update"):
        viz.player(tape, recording=True, update=update.UpdateRecord())
    with pytest.raises(ValueError, match="tangents"):
        viz.player(tape, tangents=[1.0], update=update.UpdateRecord())


def test_fold_scopes_draws_each_layer_as_one_box():
    xs, ys = _data()
    model, adam = _model(), tf.keras.optimizers.Adam(learning_rate=0.05)
    tape, _ = _step(model, adam, xs, ys)
    data = viz.trace_of(tape).data
    folded = view.build(data, fold="scopes")
    titles = sorted(f["title"] for f in folded.folds.values())
    assert titles == ["loss", "model/hidden", "model/out"]
    opened = view.build(data, fold="scopes", open=["model/hidden"])
    assert sorted(f["title"] for f in opened.folds.values()) == ["loss", "model/out"]
    assert fold.scope_boxes([{"id": "op0", "scope": "", "name": "Mul"}]) == {}


def _training_player():
    xs, ys = _data()
    model, adam = _model(), tf.keras.optimizers.Adam(learning_rate=0.05)
    for _ in range(3):
        _step(model, adam, xs, ys, clip_norm=0.5)
    with viz.record_update() as record:
        tape, _ = _step(model, adam, xs, ys, clip_norm=0.5)
    return viz.player(tape, update=record, fold="scopes"), model


def test_training_step_player_plays_forward_sweep_clip_and_update():
    player, model = _training_player()
    kinds = [f["kind"] for f in player.frames]
    assert kinds[0] == "record" and kinds[-1] == "updated"
    assert kinds.index("seed") == kinds.count("record")  # the forward pass, then the sweep
    assert kinds.index("clip") == kinds.index("done") + 1
    assert kinds.count("update") == len(model.trainable_variables)
    assert [f["index"] for f in player.frames] == list(range(len(player.frames)))
    nodes = player.animation.view.nodes
    updates = [f for f in player.frames if f["kind"] == "update"]
    assert all(f["node"] in nodes and nodes[f["node"]]["role"] == "variable" for f in updates)
    assert {f["node"] for f in updates} == {n for n, node in nodes.items() if node.get("role") == "variable"}
    lines = cards.text(updates[0]["card"])
    assert lines[0].startswith("Adam updates model/hidden/kernel (step t = 4)")
    assert any(line.strip().startswith("m = 0.9\u00b7m + 0.1\u00b7g") for line in lines)
    clip = next(f for f in player.frames if f["kind"] == "clip")
    assert "clip_by_global_norm(gradients, 0.5)" in clip["caption"]
    # from the clipping on, only the variables carry badges: what each gets, then its new value
    badges, edges = player.animation.state(clip["index"])
    assert set(badges) == {f["node"] for f in updates} and not edges
    assert all(text.split()[0] == "gets" for text in badges.values())  # "gets [..]", or over two lines
    badges, _ = player.animation.state(updates[0]["index"])
    assert badges[updates[0]["node"]].split()[0] == "now"
    legend = player.animation.legend_html()
    assert "new value (now ...)" in legend
    # the highlight marks an op being recorded, the target, an op being differentiated, then a variable
    highlight = next(t for kind, _c, t in legends.entries(player.animation.view, player.frames) if kind == "highlight")
    assert highlight == (
        "highlighted: the op recorded, the sweep's target, the op differentiated, or the variable updated"
    )
    table = cards.html(updates[0]["card"])
    assert "rule, with the numbers" in table and "<script" not in table
    # predict mode never asks about the update (no single gradient to type)
    from tapeviz.viz.widget import answer_of

    assert all(answer_of(f) is None for f in player.frames if f["kind"] in ("clip", "update", "updated"))


@needs_dot
def test_training_step_player_exports_update_cards():
    player, _ = _training_player()
    page = player.to_html()
    frames = json.loads(re.search(r'id="tapeviz-frames"[^>]*>(.*?)</script>', page, re.S).group(1))
    upd = [f for f in frames if f.get("card", {}).get("upd")]
    assert len(upd) == 5  # the clipping, then one per variable
    assert upd[1]["card"]["rows"][1][0] == "m" and "drawUpdateCard" in page
    assert player.frame_svg(len(player.frames) - 2).startswith("<svg")
