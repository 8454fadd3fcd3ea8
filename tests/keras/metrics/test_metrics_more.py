"""AUC, F1Score/FBetaScore and the IoU metrics against Keras 3 on TF 2.21
(tests/tf_reference/keras_metric_more_reference.py wrote the values and holds the data)."""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_reference.keras_metric_more_reference import data

VALUES = json.loads((pathlib.Path(__file__).parents[2] / "tf_reference" / "keras_metric_more_values.json").read_text())


@pytest.mark.parametrize("name", sorted(VALUES))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.filterwarnings("ignore:You are passing weight as `float`")  # the IoU family warns, as Keras
def test_the_metric_gives_kerass_result(name, weighted):
    case = VALUES[name]
    metric = getattr(tf.keras.metrics, case["class"])(**case["kwargs"])
    for y, p, w in data(case["kind"], case["seed"]):
        metric.update_state(np.asarray(y), np.asarray(p), sample_weight=np.asarray(w) if weighted else None)
    want = case["weighted" if weighted else "plain"]
    np.testing.assert_allclose(metric.result().numpy(), want, rtol=2e-6, atol=1e-7)


def test_a_metric_starts_again_after_reset_state():
    metric = tf.keras.metrics.AUC()
    metric.update_state([0, 1, 1], [0.9, 0.2, 0.3])
    metric.reset_state()
    metric.update_state([0, 1], [0.1, 0.9])
    assert float(metric.result()) == pytest.approx(1.0)


def test_metrics_are_found_by_name_in_compile():
    assert isinstance(tf.keras.metrics.get("AUC"), tf.keras.metrics.AUC)
    assert isinstance(tf.keras.metrics.get("f1_score"), tf.keras.metrics.F1Score)
    assert tf.keras.metrics.get("top_k_categorical_accuracy").name == "top_k_categorical_accuracy"  # Keras's snake case


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: tf.keras.metrics.AUC(curve="XYZ"), "Invalid AUC curve value"),
        (lambda: tf.keras.metrics.AUC(summation_method="mid"), "Invalid AUC summation method value"),
        (lambda: tf.keras.metrics.AUC(num_thresholds=1), "must be an integer > 1"),
        (lambda: tf.keras.metrics.F1Score(average="median"), "Invalid `average` argument value"),
        (lambda: tf.keras.metrics.FBetaScore(beta=0.0), "It should be > 0"),
        (lambda: tf.keras.metrics.F1Score(threshold=1.5), "0 < threshold <= 1"),
        (lambda: tf.keras.metrics.IoU(num_classes=2, target_class_ids=[2]), "out of range"),
    ],
)
def test_bad_arguments_raise_kerass_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_auc_trains_in_fit_and_reports_each_epoch():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile("adam", "binary_crossentropy", metrics=[tf.keras.metrics.AUC(name="auc")])
    history = model.fit(x, y, epochs=2, verbose=0)
    assert len(history.history["auc"]) == 2 and 0.0 <= history.history["auc"][-1] <= 1.0


def test_iou_warns_as_keras_when_float_weights_are_truncated():
    metric = tf.keras.metrics.BinaryIoU()
    with pytest.warns(UserWarning, match="You are passing weight as `float`, but dtype is `int`"):
        metric.update_state(
            np.array([0, 1, 1, 0.0]), np.array([0.2, 0.7, 0.4, 0.9]), sample_weight=np.array([0.5, 1.5, 2, 1.0])
        )
    assert float(metric.result()) == pytest.approx(0.125, rel=1e-6)  # Keras 3: 0.125 (weights 0, 1, 2, 1)
