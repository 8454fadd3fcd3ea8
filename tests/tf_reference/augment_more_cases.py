"""Cases of the rest of Keras 3's image augmentation layers and of keras.ops.image's colour, blur and
perspective ops, run the same way by Keras 3.15 on TF 2.21 (augment_more_reference.py) and by tapeviz
(tests/keras/layers/test_augment_more.py). Nothing here imports Keras, TF or tapeviz."""

import numpy as np


def images(shape, seed=0, scale=255.0):
    """Random float32 images in [0, scale) (as augment_cases.images)."""
    return (np.random.RandomState(seed).rand(*shape) * scale).astype("float32")


RGB = (4, 7, 9, 3)
SINGLE = (7, 9, 3)

# name: (layer class name, constructor kwargs, input shape, value scale, number of training calls)
LAYER_CASES = {
    "hue": ("RandomHue", {"factor": 0.5, "seed": 31}, RGB, 255.0, 2),
    "hue_unit_range_single": ("RandomHue", {"factor": (0.2, 0.8), "value_range": (0, 1), "seed": 32}, SINGLE, 1.0, 2),
    "saturation": ("RandomSaturation", {"factor": 0.6, "seed": 33}, RGB, 255.0, 2),
    "saturation_unit_range": (
        "RandomSaturation",
        {"factor": (0.3, 0.9), "value_range": (0, 1), "seed": 34},
        RGB,
        1.0,
        1,
    ),
    "color_degeneration": ("RandomColorDegeneration", {"factor": 0.7, "seed": 35}, RGB, 255.0, 2),
    "color_degeneration_single": (
        "RandomColorDegeneration",
        {"factor": (0.2, 0.9), "value_range": (0, 1), "seed": 36},
        SINGLE,
        1.0,
        1,
    ),
    "sharpness": ("RandomSharpness", {"factor": 0.8, "seed": 37}, RGB, 255.0, 2),
    "sharpness_unit_range_single": (
        "RandomSharpness",
        {"factor": (0.1, 0.9), "value_range": (0, 1), "seed": 38},
        SINGLE,
        1.0,
        1,
    ),
    "posterization": ("RandomPosterization", {"factor": 5, "seed": 39}, RGB, 255.0, 2),
    "posterization_fixed_unit_range": (
        "RandomPosterization",
        {"factor": (3, 3), "value_range": (0, 1), "seed": 40},
        RGB,
        1.0,
        1,
    ),
    "auto_contrast": ("AutoContrast", {}, RGB, 200.0, 1),
    "auto_contrast_unit_range_single": ("AutoContrast", {"value_range": (0, 1)}, SINGLE, 0.5, 1),
    "equalization": ("Equalization", {}, RGB, 255.0, 1),
    "equalization_bins_unit_range": ("Equalization", {"bins": 16, "value_range": (0, 1)}, RGB, 1.0, 1),
    "shear": ("RandomShear", {"x_factor": 0.3, "y_factor": 0.2, "seed": 41}, RGB, 255.0, 2),
    "shear_constant_nearest_single": (
        "RandomShear",
        {
            "x_factor": (0.1, 0.5),
            "y_factor": 0.0,
            "fill_mode": "constant",
            "fill_value": 9.0,
            "interpolation": "nearest",
            "seed": 42,
        },
        SINGLE,
        255.0,
        2,
    ),
    "perspective": ("RandomPerspective", {"factor": 0.8, "scale": 0.5, "seed": 43}, RGB, 255.0, 2),
    "perspective_nearest_single": (
        "RandomPerspective",
        {"factor": 1.0, "scale": 0.3, "interpolation": "nearest", "fill_value": 4.0, "seed": 44},
        SINGLE,
        255.0,
        2,
    ),
    "gaussian_blur": ("RandomGaussianBlur", {"factor": 0.9, "kernel_size": 3, "sigma": 0.8, "seed": 45}, RGB, 255.0, 2),
    "gaussian_blur_wide": (
        "RandomGaussianBlur",
        {"factor": (0.5, 1.0), "kernel_size": (5, 5), "sigma": (0.3, 1.0), "seed": 46},
        RGB,
        255.0,
        1,
    ),
    "color_jitter": (
        "RandomColorJitter",
        {"brightness_factor": 0.2, "contrast_factor": 0.3, "saturation_factor": 0.4, "hue_factor": 0.2, "seed": 47},
        RGB,
        255.0,
        2,
    ),
    "color_jitter_two": (
        "RandomColorJitter",
        {"contrast_factor": (0.1, 0.5), "hue_factor": 0.3, "seed": 48},
        RGB,
        255.0,
        1,
    ),
    "rand_augment": ("RandAugment", {"seed": 49}, RGB, 255.0, 4),
    "rand_augment_strong": ("RandAugment", {"num_ops": 3, "factor": 0.8, "seed": 50}, RGB, 255.0, 4),
    "rand_augment_unit_range_nearest": (
        "RandAugment",
        {"value_range": (0, 1), "num_ops": 2, "factor": 0.3, "interpolation": "nearest", "seed": 51},
        RGB,
        1.0,
        4,
    ),
    "elastic": ("RandomElasticTransform", {"factor": 0.9, "scale": 0.6, "seed": 57}, RGB, 255.0, 2),
    "elastic_constant_nearest_single": (
        "RandomElasticTransform",
        {"scale": (0.3, 0.9), "interpolation": "nearest", "fill_mode": "constant", "fill_value": 7.0, "seed": 58},
        SINGLE,
        255.0,
        2,
    ),
    "mix_up": ("MixUp", {"alpha": 0.4, "seed": 52}, RGB, 255.0, 2),
    "mix_up_single": ("MixUp", {"seed": 62}, SINGLE, 255.0, 1),
    "cut_mix": ("CutMix", {"factor": 0.8, "seed": 53}, RGB, 255.0, 2),
    "erasing": ("RandomErasing", {"factor": 0.9, "seed": 59}, RGB, 255.0, 2),
    "erasing_filled_single": (
        "RandomErasing",
        {"scale": (0.1, 0.6), "fill_value": (10.0, 20.0, 300.0), "seed": 60},
        SINGLE,
        255.0,
        2,
    ),
    "erasing_number_unit_range": (
        "RandomErasing",
        {"factor": (0.5, 1.0), "scale": 0.5, "fill_value": 0.25, "value_range": (0, 1), "seed": 61},
        RGB,
        1.0,
        1,
    ),
}


def _numpy(x):
    return np.asarray(x).tolist()


def run_layer(keras, name):
    """Training calls, one call at inference, then one more training call (it shows whether inference drew)."""
    cls_name, kwargs, shape, scale, calls = LAYER_CASES[name]
    layer = getattr(keras.layers, cls_name)(**kwargs)
    x = images(shape, scale=scale)
    outputs = [_numpy(layer(x)) for _ in range(calls)]
    inference = _numpy(layer(x, training=False))
    after = _numpy(layer(x))
    return {"outputs": outputs, "inference": inference, "after_inference": after}


def run_random(keras):
    """keras.random.gamma and beta (TF's gamma kernel) at the concentrations MixUp and CutMix use, and others."""
    r = keras.random
    draws = {
        "gamma_small": r.gamma((50,), 0.3, seed=3),
        "gamma_matrix": r.gamma((7, 3), 2.5, seed=4),
        "gamma_exponential": r.gamma((5,), 1.0, seed=5),
        "gamma_float64_generator": r.gamma((4,), 0.9, seed=keras.random.SeedGenerator(2), dtype="float64"),
        "beta_mix_up": r.beta((40,), 0.2, 0.2, seed=6),
        "beta_skewed": r.beta((6,), 2.0, 0.5, seed=7),
    }
    return {name: _numpy(value) for name, value in draws.items()}


def run_ops(keras):
    """keras.ops.image's rgb_to_hsv, hsv_to_rgb, gaussian_blur and perspective_transform."""
    image = keras.ops.image
    unit = images((2, 5, 6, 3), seed=2, scale=1.0)
    unit[0, 0, :4] = [[0.5, 0.5, 0.5], [0.2, 0.7, 0.7], [0.9, 0.9, 0.1], [0.0, 0.0, 0.0]]  # grey, ties, black
    x = images((2, 7, 9, 2), seed=3)
    start = np.array([[0, 0], [8, 0], [0, 6], [8, 6]], "float32")
    end = np.array(
        [[[1, 0.5], [7, -0.3], [0.4, 6.2], [8.5, 5.1]], [[-1, 0.2], [8.3, 1], [0.2, 5], [7, 6.6]]], "float32"
    )
    hsv = image.rgb_to_hsv(unit)
    plane = images((6, 7), seed=4)
    points = np.random.RandomState(5).rand(2, 5, 4).astype("float32") * 14 - 4
    coordinates = {
        f"map_coordinates_{order}_{mode}": _numpy(
            image.map_coordinates(plane, points, order, fill_mode=mode, fill_value=2.5)
        )
        for order in (0, 1)
        for mode in ("constant", "nearest", "wrap", "reflect")  # TF's "mirror" reads past the edge (an error)
    }
    return {
        **coordinates,
        "elastic": _numpy(image.elastic_transform(x, alpha=3.0, sigma=1.2, seed=5)),
        "elastic_nearest_constant_single": _numpy(
            image.elastic_transform(
                x[0],
                alpha=8.0,
                sigma=2.0,
                interpolation="nearest",
                fill_mode="constant",
                fill_value=3.0,
                seed=keras.random.SeedGenerator(7),
            )
        ),
        "sobel_edges": _numpy(image.sobel_edges(x)),
        "sobel_edges_channels_first": _numpy(
            image.sobel_edges(np.transpose(x, (0, 3, 1, 2)), data_format="channels_first")
        ),
        "elastic_wrap": _numpy(image.elastic_transform(x, alpha=5.0, sigma=0.8, fill_mode="wrap", seed=9)),
        "rgb_to_hsv": _numpy(hsv),
        "hsv_to_rgb": _numpy(image.hsv_to_rgb(unit)),
        "rgb_to_hsv_single": _numpy(image.rgb_to_hsv(unit[1])),
        "blur_3": _numpy(image.gaussian_blur(x, (3, 3), (1.0, 1.0))),
        "blur_5x3": _numpy(image.gaussian_blur(x, (5, 3), (0.7, 1.9))),
        "blur_single": _numpy(image.gaussian_blur(x[0], (5, 5), (2.0, 2.0))),
        "perspective": _numpy(image.perspective_transform(x, np.stack([start, start]), end)),
        "perspective_nearest_single": _numpy(
            image.perspective_transform(x[0], start, end[1], interpolation="nearest", fill_value=3.0)
        ),
    }


def run_model(keras):
    """A seeded pipeline of the new layers in a Sequential: called directly twice (augments), then predict."""
    model = keras.Sequential(
        [
            keras.Input(SINGLE),
            keras.layers.RandomHue(0.3, seed=54),
            keras.layers.RandomShear(0.2, 0.1, seed=55),
            keras.layers.RandomSharpness(0.6, seed=56),
        ]
    )
    x = images(RGB)
    first, second = _numpy(model(x)), _numpy(model(x))
    return {"calls": [first, second], "predict": _numpy(model.predict(x, verbose=0))}


def run_global_seed(keras):
    """Unseeded layers after keras.utils.set_random_seed."""
    keras.utils.set_random_seed(4321)
    hue, perspective, augment = (
        keras.layers.RandomHue(0.4),
        keras.layers.RandomPerspective(),
        keras.layers.RandAugment(),
    )
    x = images(RGB)
    return [_numpy(hue(x)), _numpy(perspective(x)), _numpy(augment(x))]


# channels_first: (layer class name, constructor kwargs) run on the RGB batch moved to (batch, channels, h, w)
CHANNELS_FIRST_CASES = {
    "rotation": ("RandomRotation", {"factor": 0.2, "seed": 70}),
    "crop": ("RandomCrop", {"height": 4, "width": 5, "seed": 71}),
    "contrast": ("RandomContrast", {"factor": 0.5, "seed": 72}),
    "hue": ("RandomHue", {"factor": 0.5, "seed": 73}),
    "saturation": ("RandomSaturation", {"factor": 0.6, "seed": 74}),
    "sharpness": ("RandomSharpness", {"factor": 0.8, "seed": 75}),
    "equalization": ("Equalization", {}),
    "shear": ("RandomShear", {"x_factor": 0.3, "y_factor": 0.2, "seed": 76}),
    "perspective": ("RandomPerspective", {"factor": 0.8, "scale": 0.5, "seed": 77}),
    "gaussian_blur": ("RandomGaussianBlur", {"factor": 0.9, "seed": 78}),
    "cut_mix": ("CutMix", {"seed": 79}),
    "erasing": ("RandomErasing", {"seed": 80}),
    "rand_augment": ("RandAugment", {"seed": 81}),
}


def run_channels_first(keras, name):
    """Two training calls and one at inference on channels-first images."""
    cls_name, kwargs = CHANNELS_FIRST_CASES[name]
    layer = getattr(keras.layers, cls_name)(data_format="channels_first", **kwargs)
    x = np.transpose(images(RGB), (0, 3, 1, 2)).copy()
    return {"outputs": [_numpy(layer(x)) for _ in range(2)], "inference": _numpy(layer(x, training=False))}


AUGMIX_CASES = {
    "aug_mix": ({"seed": 63}, RGB, 255.0),
    "aug_mix_few_ops_unit_range": (
        {
            "value_range": (0, 1),
            "num_chains": 2,
            "chain_depth": 4,
            "factor": 0.6,
            "alpha": 0.5,
            "all_ops": False,
            "seed": 64,
        },
        RGB,
        1.0,
    ),
    "aug_mix_single": ({"num_chains": 4, "alpha": 2.0, "seed": 65}, SINGLE, 255.0),
}


def run_aug_mix(keras, name):
    """AugMix picks its operations with Python's random: seeded by keras.utils.set_random_seed first."""
    kwargs, shape, scale = AUGMIX_CASES[name]
    keras.utils.set_random_seed(7)
    layer = keras.layers.AugMix(**kwargs)
    x = images(shape, scale=scale)
    return {"outputs": [_numpy(layer(x)) for _ in range(3)], "inference": _numpy(layer(x, training=False))}


def run_all(keras):
    values = {f"layer/{name}": run_layer(keras, name) for name in LAYER_CASES}
    values["random"] = run_random(keras)
    values.update({f"aug_mix/{name}": run_aug_mix(keras, name) for name in AUGMIX_CASES})
    values.update({f"channels_first/{name}": run_channels_first(keras, name) for name in CHANNELS_FIRST_CASES})
    values["ops"] = run_ops(keras)
    values["model"] = run_model(keras)
    values["global_seed"] = run_global_seed(keras)
    return values
