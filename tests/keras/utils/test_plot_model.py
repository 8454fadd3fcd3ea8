"""keras.utils.plot_model / model_to_dot: the layer graph as DOT text, drawn by the visualizer's layout program."""

import os

import pytest

import tapeviz as tf

K = tf.keras
L = K.layers


def _two_inputs():
    a, b = K.Input((3,), name="a"), K.Input((2,), name="b")
    x = L.Concatenate(name="cat")([a, b])
    return K.Model([a, b], L.Dense(1, name="out", activation="relu")(x), name="two_in")


def test_model_to_dot_has_a_box_per_layer_and_arrows_in_data_order():
    dot = K.utils.model_to_dot(_two_inputs(), show_shapes=True, show_layer_activations=True)
    assert 'n0 [label="a (InputLayer)\\noutput: (None, 3)"];' in dot
    assert 'n2 [label="cat (Concatenate)\\noutput: (None, 5)"];' in dot
    assert 'n3 [label="out (Dense)\\nactivation: relu\\noutput: (None, 1)"];' in dot
    assert [line.strip() for line in dot.splitlines() if "->" in line] == ["n0 -> n2;", "n1 -> n2;", "n2 -> n3;"]
    seq = K.Sequential([K.Input((3,)), L.Dense(2, name="d")], name="seq")
    assert "n0 -> n1;" in K.utils.model_to_dot(seq) and "d (Dense)" in K.utils.model_to_dot(seq)
    with pytest.raises(ValueError, match="not yet been built"):
        K.utils.model_to_dot(K.Sequential([L.Dense(2)]))


def test_plot_model_writes_the_picture_atomically(tmp_path):
    from tapeviz.viz import render

    model = _two_inputs()
    K.utils.plot_model(model, to_file=str(tmp_path / "m.dot"))
    assert (tmp_path / "m.dot").read_text().startswith("digraph model {")
    if not render.layout_programs():
        with pytest.raises(render.GraphvizUnavailable, match="graphviz-pure"):
            K.utils.plot_model(model, to_file=str(tmp_path / "m.png"))
        return
    K.utils.plot_model(model, to_file=str(tmp_path / "m.png"), show_shapes=True)
    K.utils.plot_model(model, to_file=str(tmp_path / "m.svg"))
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "m.svg").read_text()
    assert sorted(os.listdir(tmp_path)) == ["m.dot", "m.png", "m.svg"]
    with pytest.raises(ValueError, match=".png, .svg, .pdf or .dot"):
        K.utils.plot_model(model, to_file=str(tmp_path / "m.gif"))
