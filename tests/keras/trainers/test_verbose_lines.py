"""``fit`` / ``evaluate`` / ``predict`` output with ``verbose=2`` and the metric list, in Keras 3's form.

Keras 3.15 (TF 2.21), observed: ``fit(verbose=2)`` prints ``Epoch 1/2`` then
``2/2 - 0s - 50ms/step - accuracy: 0.0000e+00 - loss: 3.0697 - val_accuracy: ... - val_loss: ...``;
``evaluate(verbose=2)`` the same line without the epoch; ``predict(verbose=2)`` ``1/1 - 0s - 40ms/step``.
Names are sorted; a value of magnitude 1e-3 or less is written with 4 significant digits (``0.0000e+00``).
"""

import re

import numpy as np

from tapeviz import keras

STEP = r"\d+s - \d+(s|ms|us)/step"


def _model():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    x = np.linspace(-1, 1, 30, dtype="float32").reshape(10, 3)
    return model, x, np.zeros(10, "int64")


def test_fit_verbose_2_prints_the_epoch_then_kerass_line(capsys):
    model, x, y = _model()
    model.fit(x, y, epochs=2, batch_size=5, verbose=2, validation_data=(x, y))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    pattern = rf"^2/2 - {STEP} - accuracy: \S+ - loss: \S+ - val_accuracy: \S+ - val_loss: \S+$"
    assert re.match(pattern, lines[1]) and re.match(pattern, lines[3])


def test_evaluate_and_predict_verbose_2_print_one_line(capsys):
    model, x, y = _model()
    model.evaluate(x, y, batch_size=5, verbose=2)
    model.predict(x, batch_size=10, verbose=2)
    evaluate_line, predict_line = capsys.readouterr().out.splitlines()
    assert re.match(rf"^2/2 - {STEP} - accuracy: \S+ - loss: \S+$", evaluate_line)
    assert re.match(rf"^1/1 - {STEP}$", predict_line)


def test_small_values_are_written_as_keras_writes_them():
    from tapeviz.keras.utils.progbar import format_logs

    assert format_logs({"loss": 0.5, "accuracy": 0.0, "mae": 0.0004}) == (
        " - accuracy: 0.0000e+00 - loss: 0.5000 - mae: 4.0000e-04"
    )
