"""keras.callbacks.TensorBoard: files TensorBoard's own reader reads, with Keras 3's tags, steps and values.

The tags and steps expected are what Keras 3 on TF 2.21 writes for the same fit (two epochs, validation data,
histogram_freq=1): checked by hand against its event files, listed here.
"""

import numpy as np
import pytest

import tapeviz as tf

pytest.importorskip(
    "tensorboard", reason="the TensorBoard callback writes with the tensorboard package (tapeviz[tensorboard])"
)
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402
from tensorboard.util import tensor_util  # noqa: E402

KERAS_TRAIN_TAGS = [
    "keras",
    "epoch_loss",
    "epoch_mae",
    "epoch_learning_rate",
    "sequential/d/kernel/histogram",
    "sequential/d/bias/histogram",
]
KERAS_VALIDATION_TAGS = ["evaluation_loss_vs_iterations", "evaluation_mae_vs_iterations", "epoch_loss", "epoch_mae"]


def _read(folder):
    accumulator = EventAccumulator(str(folder))
    accumulator.Reload()
    return accumulator


def _values(accumulator, tag):
    return [(event.step, tensor_util.make_ndarray(event.tensor_proto)) for event in accumulator.Tensors(tag)]


@pytest.fixture
def trained(tmp_path):
    tf.keras.backend.clear_session()  # the model is 'sequential' again, its weights' paths as listed
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, name="d")])
    model.compile("sgd", "mse", metrics=["mae"])
    x = np.linspace(-1, 1, 16, dtype="float32").reshape(8, 2)
    y = np.ones((8, 1), "float32")
    callback = tf.keras.callbacks.TensorBoard(tmp_path / "logs", histogram_freq=1)
    history = model.fit(x, y, epochs=2, verbose=0, validation_data=(x, y), callbacks=[callback])
    return model, history, tmp_path / "logs"


def test_the_runs_and_tags_are_kerass(trained):
    _, _, logs = trained
    assert _read(logs / "train").Tags()["tensors"] == KERAS_TRAIN_TAGS
    assert _read(logs / "validation").Tags()["tensors"] == KERAS_VALIDATION_TAGS


def test_the_scalars_are_the_historys_numbers_at_each_epoch(trained):
    model, history, logs = trained
    train, validation = _read(logs / "train"), _read(logs / "validation")
    for key in ("loss", "mae"):
        steps, values = zip(*_values(train, f"epoch_{key}"))
        assert steps == (0, 1)
        np.testing.assert_allclose(values, history.history[key], rtol=1e-6)
        steps, values = zip(*_values(validation, f"epoch_{key}"))
        np.testing.assert_allclose(values, history.history[f"val_{key}"], rtol=1e-6)
        steps, _ = zip(*_values(validation, f"evaluation_{key}_vs_iterations"))
        assert steps == (1, 2)  # the optimizer's iterations: one batch an epoch
    (_, rate), _ = _values(train, "epoch_learning_rate")
    assert float(rate) == pytest.approx(0.01)


def test_each_weight_gets_a_histogram_of_all_its_values(trained):
    model, _, logs = trained
    train = _read(logs / "train")
    step, buckets = _values(train, "sequential/d/kernel/histogram")[-1]
    assert step == 1 and buckets.shape == (30, 3)
    assert buckets[:, 2].sum() == model.layers[0].kernel.numpy().size
    kernel = model.layers[0].kernel.numpy()
    assert buckets[0, 0] == pytest.approx(kernel.min()) and buckets[-1, 1] == pytest.approx(kernel.max())


def test_update_freq_writes_batch_scalars(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    callback = tf.keras.callbacks.TensorBoard(tmp_path, update_freq=2, write_graph=False)
    model.fit(np.ones((8, 1)), np.ones((8, 1)), batch_size=2, epochs=1, verbose=0, callbacks=[callback])
    steps = [step for step, _ in _values(_read(tmp_path / "train"), "batch_loss")]
    assert steps == [2, 4]
