"""Cases of Keras 3's image augmentation layers and keras.ops.image.affine_transform, run the same way by
Keras 3 on TF 2.21 (augment_reference.py) and by tapeviz (tests/keras/layers/test_augmentation.py).
``run(keras, name)`` returns the outputs as nested lists. Nothing here imports Keras, TF or tapeviz."""

import numpy as np


def images(shape, seed=0, scale=255.0):
    return (np.random.RandomState(seed).rand(*shape) * scale).astype("float32")


BATCH = (4, 7, 9, 2)

# name: (layer class name, constructor kwargs, input shape, number of calls)
LAYER_CASES = {
    "flip_both": ("RandomFlip", {"seed": 1}, BATCH, 2),
    "flip_horizontal": ("RandomFlip", {"mode": "horizontal", "seed": 11}, BATCH, 2),
    "flip_vertical_single": ("RandomFlip", {"mode": "vertical", "seed": 3}, (7, 9, 2), 3),
    "rotation_reflect": ("RandomRotation", {"factor": 0.2, "seed": 2}, BATCH, 2),
    "rotation_constant_nearest": (
        "RandomRotation",
        {"factor": (-0.1, 0.3), "fill_mode": "constant", "interpolation": "nearest", "fill_value": 7.0, "seed": 4},
        BATCH,
        1,
    ),
    "rotation_wrap": ("RandomRotation", {"factor": 0.5, "fill_mode": "wrap", "seed": 5}, BATCH, 1),
    "rotation_nearest_fill_single": (
        "RandomRotation",
        {"factor": 0.25, "fill_mode": "nearest", "seed": 6},
        (7, 9, 2),
        2,
    ),
    "zoom": ("RandomZoom", {"height_factor": 0.3, "seed": 7}, BATCH, 2),
    "zoom_width_constant": (
        "RandomZoom",
        {"height_factor": (-0.5, 0.2), "width_factor": (0.1, 0.4), "fill_mode": "constant", "seed": 8},
        BATCH,
        1,
    ),
    "translation": ("RandomTranslation", {"height_factor": 0.2, "width_factor": 0.3, "seed": 9}, BATCH, 2),
    "translation_wrap_nearest": (
        "RandomTranslation",
        {
            "height_factor": (-0.4, 0.1),
            "width_factor": 0.5,
            "fill_mode": "wrap",
            "interpolation": "nearest",
            "seed": 10,
        },
        BATCH,
        1,
    ),
    "crop": ("RandomCrop", {"height": 4, "width": 5, "seed": 12}, BATCH, 3),
    "crop_resize": ("RandomCrop", {"height": 8, "width": 6, "seed": 13}, BATCH, 1),
    "contrast": ("RandomContrast", {"factor": 0.5, "seed": 14}, BATCH, 2),
    "contrast_pair": ("RandomContrast", {"factor": (0.2, 0.6), "seed": 15}, BATCH, 1),
    "brightness": ("RandomBrightness", {"factor": 0.3, "seed": 16}, BATCH, 2),
    "brightness_unit_range": (
        "RandomBrightness",
        {"factor": (-0.2, 0.5), "value_range": (0, 1), "seed": 17},
        BATCH,
        1,
    ),
    "grayscale": ("RandomGrayscale", {"factor": 0.6, "seed": 18}, (4, 7, 9, 3), 2),
    "invert": ("RandomInvert", {"factor": 0.7, "seed": 19}, BATCH, 2),
    "invert_unit_range": ("RandomInvert", {"factor": (0.3, 1.0), "value_range": (0, 1), "seed": 20}, BATCH, 1),
    "solarization": ("Solarization", {"addition_factor": 0.3, "threshold_factor": 0.6, "seed": 24}, BATCH, 2),
    "solarization_ranges": (
        "Solarization",
        {"addition_factor": (0.1, 0.2), "threshold_factor": (0.4, 0.9), "value_range": (-1, 1), "seed": 25},
        BATCH,
        1,
    ),
}

# name: (transform (8 numbers or a batch of them), interpolation, fill_mode, fill_value)
AFFINE_CASES = {
    "projective_bilinear_constant": ([0.9, 0.2, -1.5, -0.1, 1.1, 0.7, 0.01, -0.02], "bilinear", "constant", 3.0),
    "projective_bilinear_reflect": ([1.3, -0.4, 2.0, 0.3, 0.8, -3.1, 0.0, 0.03], "bilinear", "reflect", 0.0),
    "projective_nearest_wrap": ([0.7, 0.5, -6.3, -0.6, 1.2, 4.4, 0.02, 0.01], "nearest", "wrap", 0.0),
    "far_bilinear_nearest": ([2.5, 0.0, -9.0, 0.0, 3.0, 11.0, 0.0, 0.0], "bilinear", "nearest", 0.0),
    "far_bilinear_reflect": ([2.5, 0.3, -19.0, -0.2, 3.0, 21.0, 0.0, 0.0], "bilinear", "reflect", 0.0),
    "far_bilinear_wrap": ([2.5, 0.3, -19.0, -0.2, 3.0, 21.0, 0.0, 0.0], "bilinear", "wrap", 0.0),
    "per_image": (
        [[1, 0, 0.5, 0, 1, -0.25, 0, 0], [0.5, 0.5, 1, -0.5, 0.5, 2, 0, 0], [1, 0, 0, 0, 1, 0, 0, 0]],
        "bilinear",
        "constant",
        -1.0,
    ),
}
AFFINE_SHAPE = (3, 6, 8, 2)


def run_layer(keras, name):
    cls_name, kwargs, shape, calls = LAYER_CASES[name]
    layer = getattr(keras.layers, cls_name)(**kwargs)
    x = images(shape)
    outputs = [np.asarray(layer(x)).tolist() for _ in range(calls)]
    inference = np.asarray(layer(x, training=False))
    return {"outputs": outputs, "inference_is_input": bool(np.array_equal(inference, x))}


def run_affine(keras, name):
    transform, interpolation, fill_mode, fill_value = AFFINE_CASES[name]
    x = images(AFFINE_SHAPE, seed=1)
    transform = np.asarray(transform, "float32")
    out = keras.ops.image.affine_transform(
        x, transform, interpolation=interpolation, fill_mode=fill_mode, fill_value=fill_value
    )
    return np.asarray(out).tolist()


def run_model(keras):
    """A seeded augmentation pipeline in a Sequential: called directly twice (augments), then predict (does not)."""
    model = keras.Sequential(
        [
            keras.Input((7, 9, 2)),
            keras.layers.RandomFlip("horizontal", seed=21),
            keras.layers.RandomRotation(0.1, seed=22),
            keras.layers.RandomZoom(0.2, seed=23),
        ]
    )
    x = images(BATCH)
    first, second = np.asarray(model(x)), np.asarray(model(x))
    predicted = model.predict(x, verbose=0)
    return {"calls": [first.tolist(), second.tolist()], "predict_is_input": bool(np.allclose(predicted, x))}


def run_global_seed(keras):
    """Unseeded layers after keras.utils.set_random_seed: their seeds come from Python's random, as Keras's."""
    keras.utils.set_random_seed(1234)
    flip, rotation = keras.layers.RandomFlip(), keras.layers.RandomRotation(0.3)
    x = images(BATCH)
    return [np.asarray(flip(x)).tolist(), np.asarray(rotation(x)).tolist()]


def run_all(keras):
    values = {f"layer/{name}": run_layer(keras, name) for name in LAYER_CASES}
    values.update({f"affine/{name}": run_affine(keras, name) for name in AFFINE_CASES})
    values["model"] = run_model(keras)
    values["global_seed"] = run_global_seed(keras)
    return values
