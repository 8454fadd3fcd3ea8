"""The rest of Keras 3's augmentation layers and keras.ops.image's rgb_to_hsv, hsv_to_rgb, gaussian_blur and
perspective_transform, against Keras 3.15 on TF 2.21.

Reference values: tests/tf_reference/augment_more_reference.py (the same cases module runs here).
"""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import keras
from tests.tf_reference import augment_more_cases as cases

VALUES = json.loads((pathlib.Path(cases.__file__).parent / "augment_more_values.json").read_text())

ATOL = 5e-4  # float32 images in [0, 255]: a sum's order (blur) or the homography's solve differ by ulps


def _close(got, want, atol=ATOL):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=atol)


@pytest.mark.parametrize("name", sorted(cases.LAYER_CASES))
def test_a_seeded_layer_gives_keras_images_at_training_and_at_inference(name):
    got, want = cases.run_layer(keras, name), VALUES[f"layer/{name}"]
    _close(got["outputs"], want["outputs"])
    _close(got["inference"], want["inference"])
    _close(got["after_inference"], want["after_inference"])  # whether inference moved the seed, as Keras


@pytest.mark.parametrize("name", sorted(cases.AUGMIX_CASES))
def test_aug_mix_after_set_random_seed_gives_keras_images(name):
    got, want = cases.run_aug_mix(keras, name), VALUES[f"aug_mix/{name}"]
    _close(got["outputs"], want["outputs"])
    _close(got["inference"], want["inference"])


@pytest.mark.parametrize("name", sorted(cases.CHANNELS_FIRST_CASES))
def test_a_channels_first_layer_gives_keras_images(name):
    got, want = cases.run_channels_first(keras, name), VALUES[f"channels_first/{name}"]
    _close(got["outputs"], want["outputs"])
    _close(got["inference"], want["inference"])


def test_keras_image_ops_match_tf():
    got, want = cases.run_ops(keras), VALUES["ops"]
    assert sorted(got) == sorted(want)
    for name in want:
        exact = name.startswith(("rgb_to_hsv", "hsv_to_rgb"))  # TF's kernel, op for op
        _close(got[name], want[name], atol=0 if exact else ATOL)


def test_a_sequential_of_new_layers_augments_when_called_and_not_in_predict():
    got, want = cases.run_model(keras), VALUES["model"]
    _close(got["calls"], want["calls"])
    _close(got["predict"], want["predict"])


def test_unseeded_layers_take_their_seeds_from_keras_set_random_seed():
    got, want = cases.run_global_seed(keras), VALUES["global_seed"]
    for g, w in zip(got, want):
        _close(g, w)


def test_keras_random_gamma_and_beta_give_keras_numbers():
    got, want = cases.run_random(keras), VALUES["random"]
    assert sorted(got) == sorted(want)
    for name in want:
        np.testing.assert_array_equal(np.asarray(got[name]), np.asarray(want[name]), err_msg=name)


def test_mix_up_weights_follow_a_beta_distribution():
    layer = keras.layers.MixUp(alpha=2.0, seed=7)
    weights = layer.random_transformation(np.zeros((500, 1, 1, 1), "float32"))[1].numpy()
    assert np.all((weights >= 0) & (weights <= 1))
    assert abs(weights.mean() - 0.5) < 0.03 and abs(weights.var() - 0.05) < 0.01  # Beta(2, 2): mean 1/2, var 1/20


LAYER_EXAMPLES = {
    "RandomHue": {"factor": 0.3, "value_range": (0, 1), "seed": 3},
    "RandomSaturation": {"factor": (0.2, 0.7), "seed": 3},
    "RandomColorDegeneration": {"factor": 0.4, "seed": 3},
    "RandomSharpness": {"factor": 0.7, "seed": 3},
    "RandomPosterization": {"factor": 6, "seed": 3},
    "AutoContrast": {"value_range": (0, 1)},
    "Equalization": {"bins": 32},
    "RandomShear": {"x_factor": 0.2, "y_factor": (0.1, 0.3), "fill_mode": "constant", "seed": 3},
    "RandomPerspective": {"factor": 0.9, "scale": 0.4, "seed": 3},
    "RandomGaussianBlur": {"factor": 0.9, "kernel_size": (3, 5), "sigma": 0.6, "seed": 3},
    "MixUp": {"alpha": 0.3, "seed": 3},
    "CutMix": {"factor": 0.6, "seed": 3},
    "RandomColorJitter": {"brightness_factor": 0.1, "hue_factor": 0.2, "seed": 3},
    "RandAugment": {"num_ops": 3, "factor": 0.6, "seed": 3},
    "RandomElasticTransform": {"factor": 0.8, "scale": (0.2, 0.7), "fill_mode": "wrap", "seed": 3},
    "RandomErasing": {"scale": (0.1, 0.4), "fill_value": 3.0, "seed": 3},
    "AugMix": {"num_chains": 2, "chain_depth": 2, "all_ops": False, "seed": 3},
}


@pytest.mark.parametrize("cls_name", sorted(LAYER_EXAMPLES))
def test_config_round_trips_to_a_layer_that_draws_the_same(cls_name):
    cls = getattr(keras.layers, cls_name)
    layer = cls(**LAYER_EXAMPLES[cls_name])
    again = cls.from_config(layer.get_config())
    assert again.get_config() == layer.get_config()
    x = cases.images(cases.RGB)
    keras.utils.set_random_seed(1)  # AugMix picks with Python's random
    first = layer(x)
    keras.utils.set_random_seed(1)
    np.testing.assert_array_equal(first, again(x))


def test_a_model_of_new_layers_saves_and_loads_with_its_configs(tmp_path):
    model = keras.Sequential(
        [keras.Input(cases.SINGLE), keras.layers.RandomHue(0.3, seed=5), keras.layers.RandAugment(num_ops=1, seed=6)]
    )
    path = tmp_path / "augment.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    assert [type(layer).__name__ for layer in loaded.layers] == ["RandomHue", "RandAugment"]
    assert [layer.get_config() for layer in loaded.layers][1]["num_ops"] == 1
    x = cases.images(cases.RGB)
    np.testing.assert_array_equal(model(x), loaded(x))  # same seeds, fresh generators: the same draws


def _gradcheck(fn, x):
    result = tf.viz.gradcheck(fn, x)
    assert result.ok, str(result)


def test_rgb_to_hsv_and_back_gradients_match_finite_differences_in_float64():
    rgb = np.random.RandomState(5).uniform(0.05, 0.95, (2, 3, 4, 3))  # distinct channels: away from the kinks
    weights = tf.constant(np.random.RandomState(6).rand(2, 3, 4, 3))
    _gradcheck(lambda images: tf.reduce_sum(keras.ops.image.rgb_to_hsv(images) * weights), rgb)
    hsv = np.random.RandomState(7).uniform(0.05, 0.95, (2, 3, 4, 3))
    hsv[..., 0] = np.random.RandomState(8).uniform(0.02, 0.98, (2, 3, 4)) // (1 / 6) / 6 + 0.07  # off the sextant edges
    _gradcheck(lambda images: tf.reduce_sum(keras.ops.image.hsv_to_rgb(images) * weights), hsv)


def test_gaussian_blur_and_perspective_gradients_match_finite_differences_in_float64():
    x = np.random.RandomState(9).rand(2, 5, 6, 2)
    weights = tf.constant(np.random.RandomState(10).rand(2, 5, 6, 2))
    _gradcheck(lambda images: tf.reduce_sum(keras.ops.image.gaussian_blur(images, (3, 5), (0.8, 1.3)) * weights), x)
    start = np.array([[0, 0], [5, 0], [0, 4], [5, 4]], "float32")
    end = np.array([[0.3, -0.2], [5.4, 0.1], [-0.2, 4.3], [4.6, 3.8]], "float32")
    _gradcheck(
        lambda images: tf.reduce_sum(
            keras.ops.image.perspective_transform(images, start, end, fill_value=0.5) * weights
        ),
        x,
    )


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("fill_mode", ["constant", "nearest", "wrap", "reflect"])
def test_map_coordinates_gradient_matches_finite_differences_in_float64(order, fill_mode):
    x = np.random.RandomState(11).rand(4, 5)
    points = np.random.RandomState(12).rand(2, 3, 6) * 9 - 2.3  # off the integers: the weights are smooth
    weights = tf.constant(np.random.RandomState(13).rand(3, 6))
    _gradcheck(
        lambda a: tf.reduce_sum(keras.ops.image.map_coordinates(a, points, order, fill_mode, fill_value=0.5) * weights),
        x,
    )


def test_sobel_edges_gradient_matches_finite_differences_in_float64():
    x = np.random.RandomState(16).rand(2, 4, 5, 2)
    weights = tf.constant(np.random.RandomState(17).rand(2, 4, 5, 2, 2))
    _gradcheck(lambda a: tf.reduce_sum(keras.ops.image.sobel_edges(a) * weights), x)


def test_elastic_transform_gradient_matches_finite_differences_in_float64():
    x = np.random.RandomState(14).rand(1, 6, 7, 2)
    weights = tf.constant(np.random.RandomState(15).rand(1, 6, 7, 2))
    _gradcheck(lambda a: tf.reduce_sum(keras.ops.image.elastic_transform(a, alpha=2.0, sigma=1.0, seed=3) * weights), x)


def test_a_colour_layer_is_differentiable_in_its_images():
    layer = keras.layers.RandomColorJitter(contrast_factor=0.3, saturation_factor=0.2, hue_factor=0.1, seed=2)
    x = tf.Variable(cases.images((2, 4, 5, 3), scale=200.0) + 20.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(x))
    grad = tape.gradient(y, x)
    assert grad is not None and grad.shape == x.shape and np.all(np.isfinite(grad.numpy()))


def test_bad_arguments_are_refused_with_keras_messages():
    with pytest.raises(ValueError, match=r"in the range \[0, 1\]"):
        keras.layers.RandomHue(1.5)
    with pytest.raises(ValueError, match="list of two numbers"):
        keras.layers.RandomSaturation(0.5, value_range=(0, 1, 2))
    with pytest.raises(ValueError, match=r"in the range \[1, 8\]"):
        keras.layers.RandomPosterization(9)
    with pytest.raises(ValueError, match=r"in the range \[0, 1.0\]"):
        keras.layers.RandomShear(x_factor=1.5)
    with pytest.raises(NotImplementedError, match="Unknown `fill_mode`"):
        keras.layers.RandomShear(0.1, fill_mode="mirror")
    with pytest.raises(ValueError, match="scale"):
        keras.layers.RandomPerspective(scale=2.0)
    with pytest.raises(ValueError, match="odd"):
        keras.layers.RandomGaussianBlur(kernel_size=4)
    with pytest.raises(ValueError, match="3 channels"):
        keras.layers.RandomColorDegeneration(0.2).compute_output_shape((None, 5, 5, 1))
    with pytest.raises(ValueError, match="float dtype"):
        keras.ops.image.rgb_to_hsv(np.zeros((2, 2, 3), "int32"))
    with pytest.raises(NotImplementedError, match="Unknown `fill_mode`"):
        keras.layers.RandomElasticTransform(fill_mode="edge")
    with pytest.raises(ValueError, match="fill_value"):
        keras.layers.RandomErasing(fill_value="grey")(np.zeros((2, 4, 4, 3), "float32"))
    with pytest.raises(NotImplementedError, match="order<=1"):
        keras.ops.image.map_coordinates(np.zeros((3, 3)), np.zeros((2, 1, 1)), 3)
    with pytest.raises(ValueError, match="fill_mode"):
        keras.ops.image.elastic_transform(np.zeros((4, 4, 1), "float32"), fill_mode="mirror")
    with pytest.raises(ValueError, match="start_points"):
        keras.ops.image.perspective_transform(np.zeros((4, 4, 1), "float32"), np.zeros((3, 2)), np.zeros((3, 2)))
