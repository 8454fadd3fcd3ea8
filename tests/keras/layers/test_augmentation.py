"""Keras 3's image augmentation layers and keras.ops.image.affine_transform against Keras 3.15 on TF 2.21.

The reference values come from tests/tf_reference/augment_reference.py (the same cases module runs here).
"""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import keras
from tests.tf_reference import augment_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "augment_values.json").read_text())

# float32 images in [0, 255]; rotations differ from Eigen's float32 sin/cos by an ulp at most
ATOL = 5e-4


@pytest.mark.parametrize("name", sorted(cases.LAYER_CASES))
def test_a_seeded_layer_gives_keras_images_and_passes_them_through_at_inference(name):
    got, want = cases.run_layer(keras, name), VALUES[f"layer/{name}"]
    np.testing.assert_allclose(np.asarray(got["outputs"]), np.asarray(want["outputs"]), rtol=1e-6, atol=ATOL)
    assert got["inference_is_input"] == want["inference_is_input"]


@pytest.mark.parametrize("name", sorted(cases.AFFINE_CASES))
def test_affine_transform_matches_tfs_projective_transform_kernel(name):
    np.testing.assert_allclose(
        np.asarray(cases.run_affine(keras, name)), np.asarray(VALUES[f"affine/{name}"]), rtol=1e-6, atol=ATOL
    )


def test_a_sequential_pipeline_augments_when_called_and_not_in_predict():
    got, want = cases.run_model(keras), VALUES["model"]
    np.testing.assert_allclose(np.asarray(got["calls"]), np.asarray(want["calls"]), rtol=1e-6, atol=ATOL)
    assert got["predict_is_input"] is want["predict_is_input"] is True


def test_unseeded_layers_take_their_seeds_from_keras_set_random_seed():
    np.testing.assert_allclose(
        np.asarray(cases.run_global_seed(keras)), np.asarray(VALUES["global_seed"]), rtol=1e-6, atol=ATOL
    )


@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
@pytest.mark.parametrize("fill_mode", ["constant", "reflect", "wrap", "nearest"])
def test_affine_transform_gradient_matches_finite_differences_in_float64(interpolation, fill_mode):
    x = np.random.RandomState(3).rand(2, 4, 5, 2)
    transform = np.array([0.83, 0.21, 0.37, -0.19, 1.07, 0.41, 0.013, -0.021], "float32")
    weights = tf.constant(np.random.RandomState(4).rand(2, 4, 5, 2))

    def f(images):
        out = keras.ops.image.affine_transform(
            images, transform, interpolation=interpolation, fill_mode=fill_mode, fill_value=0.5
        )
        return tf.reduce_sum(out * weights)

    result = tf.viz.gradcheck(f, x)
    assert result.ok, str(result)


def test_a_layer_is_differentiable_in_its_images():
    layer = keras.layers.RandomRotation(0.2, seed=1)
    x = tf.Variable(cases.images((2, 5, 6, 1)))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x))
    grad = tape.gradient(y, x)
    assert grad is not None and grad.shape == x.shape and float(tf.reduce_sum(grad)) > 0


def test_bad_arguments_are_refused_with_keras_messages():
    with pytest.raises(ValueError, match="unknown mode"):
        keras.layers.RandomFlip("diagonal")
    with pytest.raises(ValueError, match=r"in the range \[0, 1\]"):
        keras.layers.RandomContrast(1.5)
    with pytest.raises(NotImplementedError, match="Unknown `fill_mode`"):
        keras.layers.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(ValueError, match=r"\(-1.0, 1.0\]"):
        keras.layers.RandomZoom(-1.0)
    with pytest.raises(ValueError, match="rank 3"):
        keras.layers.RandomFlip()(np.zeros((2, 3), "float32"))
    with pytest.raises(ValueError, match="interpolation"):
        keras.ops.image.affine_transform(np.zeros((2, 2, 1), "float32"), np.eye(3).ravel()[:8], interpolation="cubic")


def test_config_round_trips_and_crop_states_its_output_shape():
    layer = keras.layers.RandomZoom((-0.2, 0.1), width_factor=0.3, fill_mode="constant", seed=5)
    again = keras.layers.RandomZoom.from_config(layer.get_config())
    x = cases.images((2, 6, 6, 1))
    np.testing.assert_array_equal(layer(x), again(x))  # the same seed: the same zooms
    assert keras.layers.RandomCrop(3, 4).compute_output_shape((None, 8, 9, 3)) == (None, 3, 4, 3)
