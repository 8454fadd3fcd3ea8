"""tf.image against TF 2.21: resize (half-pixel centres), flips, contrast, brightness,
grayscale, dtype conversion, and the autodiff guide's LookupError.

TF's numbers come from tests/tf_reference/ops_reference.py (section
"tf.image"); gradients are of sum(out * weights) as in tests/tf_compare.py.
"""

import numpy as np
import pytest

import tapeviz as tf
from tests.tf_compare import assert_tf, grads

# Output of ops_reference.py, TF 2.21.0 (CPU).
TF = {
    "resize_bilinear_up": [
        [
            [0.0, 1.0],
            [0.8000000715255737, 1.8000000715255737],
            [2.0, 3.0],
            [3.200000286102295, 4.200000286102295],
            [4.0, 5.0],
        ],
        [
            [3.0, 4.0],
            [3.8000001907348633, 4.800000190734863],
            [5.0, 6.0],
            [6.200000762939453, 7.200000762939453],
            [7.0, 8.0],
        ],
        [
            [6.0, 7.0],
            [6.800000190734863, 7.800000190734863],
            [8.0, 9.0],
            [9.200000762939453, 10.200000762939453],
            [10.0, 11.0],
        ],
    ],
    "resize_nearest_up": [
        [[0.0, 1.0], [0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [4.0, 5.0]],
        [[6.0, 7.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [10.0, 11.0]],
        [[6.0, 7.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [10.0, 11.0]],
    ],
    "resize_bilinear_down": [
        [[2.8333332538604736], [4.5], [6.166666030883789]],
        [[12.833333015441895], [14.5], [16.16666603088379]],
    ],
    "resize_nearest_down": [[[5.0], [7.0], [9.0]], [[15.0], [17.0], [19.0]]],
    "resize_bilinear_odd": [
        [
            [
                [0.6181666851043701, 0.05649149417877197],
                [0.19842076301574707, -0.1988697350025177],
                [-0.47317254543304443, -0.607447624206543],
                [-0.35579973459243774, -0.08346471190452576],
                [-0.09446543455123901, 0.47428902983665466],
                [0.3856319189071655, 0.3358786404132843],
                [0.6856926083564758, 0.24937224388122559],
            ],
            [
                [-0.9576594829559326, -0.27516335248947144],
                [-0.37981075048446655, 0.1762181520462036],
                [0.544746994972229, 0.8984283804893494],
                [0.5341993570327759, 0.22048765420913696],
                [0.3075072765350342, -0.5466652512550354],
                [-0.49708861112594604, -0.5381531119346619],
                [-0.9999608397483826, -0.5328330397605896],
            ],
            [
                [0.6975418329238892, 0.3215499520301819],
                [0.32339349389076233, -0.04323256015777588],
                [-0.275243878364563, -0.6268845200538635],
                [-0.37812569737434387, -0.21945884823799133],
                [-0.3280126452445984, 0.27676284313201904],
                [0.2973077893257141, 0.403478741645813],
                [0.6881328225135803, 0.4826761782169342],
            ],
        ]
    ],
    "resize_nearest_odd": [
        [
            [
                [1.0, 0.5403022766113281],
                [1.0, 0.5403022766113281],
                [-0.41614681482315063, -0.9899924993515015],
                [-0.6536436080932617, 0.28366217017173767],
                [-0.6536436080932617, 0.28366217017173767],
                [0.9601702690124512, 0.7539022564888],
                [0.9601702690124512, 0.7539022564888],
            ],
            [
                [-0.9576594829559326, -0.27516335248947144],
                [-0.9576594829559326, -0.27516335248947144],
                [0.6603167057037354, 0.9887046217918396],
                [0.4080820679664612, -0.5477292537689209],
                [0.4080820679664612, -0.5477292537689209],
                [-0.9999608397483826, -0.5328330397605896],
                [-0.9999608397483826, -0.5328330397605896],
            ],
            [
                [0.8342233896255493, -0.01327674649655819],
                [0.8342233896255493, -0.01327674649655819],
                [-0.8485702872276306, -0.9036921858787537],
                [-0.12796369194984436, 0.7654140591621399],
                [-0.12796369194984436, 0.7654140591621399],
                [0.9550736546516418, 0.2666429281234741],
                [0.9550736546516418, 0.2666429281234741],
            ],
        ]
    ],
    "resize_dtypes": ["float32", "int32", "float32", "float64"],
    "resize_aspect": [2, 4, 1],
    "resize_grads": [
        [
            [
                [[1.754063367843628], [-0.05613752827048302], [-1.746854305267334]],
                [[-0.4065339267253876], [1.7484880685806274], [0.18199032545089722]],
            ]
        ],
        [
            [
                [[1.5403022766113281], [-0.416146844625473], [-1.6436361074447632]],
                [[0.4091866612434387], [1.5977561473846436], [-0.012446239590644836]],
            ]
        ],
        [
            [
                [
                    [
                        [0.45719221234321594, -0.050573207437992096],
                        [-0.18366238474845886, 0.19118860363960266],
                        [0.030206486582756042, -0.311678409576416],
                        [0.19603855907917023, 0.5634739995002747],
                    ],
                    [
                        [0.22859607636928558, -0.025286603718996048],
                        [-0.09183117747306824, 0.09559430181980133],
                        [0.015103250741958618, -0.15583918988704681],
                        [0.09801927208900452, 0.28173696994781494],
                    ],
                    [
                        [-0.4317355155944824, -0.8659569025039673],
                        [0.47517096996307373, 0.5459456443786621],
                        [-0.5730014443397522, -0.41463717818260193],
                        [0.848179817199707, 0.30700355768203735],
                    ],
                    [
                        [-0.26795241236686707, -0.05365245044231415],
                        [0.13514693081378937, -0.04582693427801132],
                        [-0.0673370361328125, 0.11804168671369553],
                        [-0.020700763911008835, -0.2537512481212616],
                    ],
                    [
                        [-0.5359044671058655, -0.10730481147766113],
                        [0.2702937126159668, -0.09165380895137787],
                        [-0.13467396795749664, 0.23608320951461792],
                        [-0.041401512920856476, -0.5075020790100098],
                    ],
                ]
            ]
        ],
        [
            [
                [
                    [
                        [0.5838531255722046, -0.44969022274017334],
                        [-0.6536436080932617, 0.28366219997406006],
                        [0.814670205116272, -0.1572279930114746],
                        [0.004782438278198242, 0.9118725061416626],
                    ],
                    [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
                    [
                        [-0.8209222555160522, -1.034851312637329],
                        [0.6603167057037354, 0.9887046217918396],
                        [-0.5918787717819214, -1.0805623531341553],
                        [1.0710983276367188, 0.6990640163421631],
                    ],
                    [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
                    [
                        [-0.8083544373512268, 0.1666848063468933],
                        [0.8342233896255493, -0.013276747427880764],
                        [-0.9765340089797974, -0.13827812671661377],
                        [0.2881355881690979, -0.7206963300704956],
                    ],
                ]
            ]
        ],
    ],
    "flips": [
        [[[4.0, 5.0], [2.0, 3.0], [0.0, 1.0]], [[10.0, 11.0], [8.0, 9.0], [6.0, 7.0]]],
        [[[6.0, 7.0], [8.0, 9.0], [10.0, 11.0]], [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]],
        [[[[1.0], [0.0]], [[3.0], [2.0]]], [[[5.0], [4.0]], [[7.0], [6.0]]]],
    ],
    "grayscale": [[[[0.4558800160884857], [0.2989000082015991]]], [[[124]]], [[[0.4558800160884857]]]],
    "grayscale_grad": [
        [
            [
                [0.2989000082015991, 0.5870000123977661, 0.11400000005960464],
                [0.1614963561296463, 0.31715744733810425, 0.061594460159540176],
            ],
            [
                [-0.12438629567623138, -0.2442782074213028, -0.04744074121117592],
                [-0.29590877890586853, -0.5811256170272827, -0.11285914480686188],
            ],
        ]
    ],
    "adjust_contrast": [
        [[[-3.5, -2.5, -1.5], [2.5, 3.5, 4.5]], [[8.5, 9.5, 10.5], [14.5, 15.5, 16.5]]],
        [[[0, 27, 42], [255, 0, 0]]],
        [[[-0.5, 0.5, 1.5], [5.5, 6.5, 7.5]]],
        [[[1.75, 2.75, 3.75], [3.25, 4.25, 5.25]]],
    ],
    "adjust_brightness": [
        [[[1.5, 2.5, 3.5], [4.5, 5.5, 6.5]], [[7.5, 8.5, 9.5], [10.5, 11.5, 12.5]]],
        [[[35, 255, 55]]],
    ],
    "convert_image_dtype": [
        [0.0, 0.501960813999176, 1.0],
        [0, 127, 255, 50],
        [0, 127, 255, 255],
        [0, 1073741824, 2139095040],
    ],
    "autodiff_guide_adjust_contrast": [
        [[[0.5, 0.0, 0.0]]],
        "LookupError: gradient registry has no entry for: AdjustContrastv2",
    ],
}

IMG = tf.reshape(tf.range(12, dtype=tf.float32), [2, 3, 2])
RAMP = tf.reshape(tf.range(20.0), [4, 5, 1])
ODD = tf.reshape(tf.cos(tf.range(5 * 4 * 2, dtype=tf.float32)), [1, 5, 4, 2])  # fewer rows, more columns
PIXELS = [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]]


def test_resize_bilinear_is_tfs_half_pixel_bilinear():
    assert_tf(tf.image.resize(IMG, [3, 5]), TF["resize_bilinear_up"])
    assert_tf(tf.image.resize(RAMP, [2, 3]), TF["resize_bilinear_down"])
    assert_tf(tf.image.resize(ODD, [3, 7]), TF["resize_bilinear_odd"])
    assert tf.image.resize(tf.zeros([2, 4, 4, 3]), (2, 2)).shape == (2, 2, 2, 3)
    assert tf.image.resize(IMG, tf.constant([3, 5])).shape == (3, 5, 2)


def test_resize_nearest_is_tfs_half_pixel_nearest():
    assert_tf(tf.image.resize(IMG, [3, 5], method="nearest"), TF["resize_nearest_up"])
    assert_tf(tf.image.resize(RAMP, [2, 3], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR), TF["resize_nearest_down"])
    assert_tf(tf.image.resize(ODD, [3, 7], method="nearest"), TF["resize_nearest_odd"])


def test_resize_dtypes_and_aspect_ratio_as_tf():
    small = tf.constant([[[1], [2]], [[3], [4]]])
    dtypes = [
        tf.image.resize(small, [3, 3]).dtype.name,
        tf.image.resize(small, [3, 3], method="nearest").dtype.name,
        tf.image.resize(tf.cast(small, tf.float64), [3, 3]).dtype.name,
        tf.image.resize(tf.cast(small, tf.float64), [3, 3], method="nearest").dtype.name,
    ]
    assert dtypes == TF["resize_dtypes"]
    assert (
        tf.image.resize(tf.zeros([4, 8, 1]), [4, 4], preserve_aspect_ratio=True).shape.as_list() == TF["resize_aspect"]
    )


def test_resize_gradients_as_tf():
    ramp = np.arange(6.0).reshape(2, 3, 1)
    assert_tf(
        [
            grads(lambda x: tf.image.resize(x, [3, 5]), ramp),
            grads(lambda x: tf.image.resize(x, [3, 5], method="nearest"), ramp),
            grads(lambda x: tf.image.resize(x, [3, 7]), ODD.numpy()),
            grads(lambda x: tf.image.resize(x, [3, 7], method="nearest"), ODD.numpy()),
        ],
        TF["resize_grads"],
        rtol=1e-5,
        atol=1e-6,
    )


def test_resize_errors():
    with pytest.raises(ValueError, match="'images' must have either 3 or 4 dimensions"):
        tf.image.resize(tf.zeros([4, 4]), (2, 2))
    with pytest.raises(ValueError, match="Resize method is not implemented: foo"):
        tf.image.resize(IMG, [3, 5], method="foo")
    with pytest.raises(NotImplementedError, match="bicubic"):
        tf.image.resize(IMG, [3, 5], method="bicubic")


def test_flips_as_tf():
    assert_tf(
        [
            tf.image.flip_left_right(IMG),
            tf.image.flip_up_down(IMG),
            tf.image.flip_left_right(tf.reshape(tf.range(8.0), [2, 2, 2, 1])),
        ],
        TF["flips"],
    )
    with pytest.raises(ValueError, match=r"'image' \(shape \(2, 2\)\) must be at least three-dimensional"):
        tf.image.flip_left_right(tf.zeros([2, 2]))


def test_random_flips_flip_each_image_or_leave_it():
    batch = tf.reshape(tf.range(64.0), [16, 2, 2, 1])
    tf.random.set_seed(5)
    out = tf.image.random_flip_left_right(batch).numpy()
    flipped = [np.array_equal(o, b[:, ::-1]) for o, b in zip(out, batch.numpy())]
    kept = [np.array_equal(o, b) for o, b in zip(out, batch.numpy())]
    assert all(f != k for f, k in zip(flipped, kept))  # each image: one or the other
    assert 0 < sum(flipped) < 16  # one coin per image
    tf.random.set_seed(5)
    np.testing.assert_array_equal(tf.image.random_flip_left_right(batch).numpy(), out)  # seeded: repeatable
    ups = {tuple(tf.image.random_flip_up_down(IMG, seed=s).numpy()[:, 0, 0]) for s in range(12)}
    assert ups == {(0.0, 6.0), (6.0, 0.0)}


def test_random_flip_is_differentiable():
    x = tf.Variable(tf.reshape(tf.range(8.0), [2, 2, 2, 1]))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.random_flip_left_right(x, seed=3) * tf.reshape(tf.range(8.0), [2, 2, 2, 1]))
    assert sorted(tape.gradient(y, x).numpy().ravel().tolist()) == list(range(8))


def test_grayscale_as_tf():
    assert_tf(
        [
            tf.image.rgb_to_grayscale(tf.constant([[[0.2, 0.5, 0.9], [1.0, 0.0, 0.0]]])),
            tf.image.rgb_to_grayscale(tf.constant([[[200, 100, 50]]], tf.uint8)),
            tf.image.rgb_to_grayscale(tf.constant([[[0.2, 0.5, 0.9]]], tf.float64)),
        ],
        TF["grayscale"],
    )
    assert tf.image.rgb_to_grayscale(tf.constant([[[200, 100, 50]]], tf.uint8)).dtype == tf.uint8
    assert_tf(grads(tf.image.rgb_to_grayscale, np.cos(np.arange(12.0)).reshape(2, 2, 3)), TF["grayscale_grad"])
    assert tf.image.grayscale_to_rgb(tf.zeros([2, 2, 1])).shape == (2, 2, 3)
    with pytest.raises(ValueError, match="3 channels"):
        tf.image.rgb_to_grayscale(tf.zeros([2, 2, 2]))


def test_adjust_contrast_and_brightness_as_tf():
    assert_tf(
        [
            tf.image.adjust_contrast(PIXELS, 2.0),
            tf.image.adjust_contrast(tf.constant([[[10, 20, 30], [250, 5, 6]]], tf.uint8), 2.0),
            tf.image.adjust_contrast(tf.constant([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]], tf.float64), 2.0),
            tf.image.adjust_contrast(tf.constant([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]), tf.constant(0.5)),
        ],
        TF["adjust_contrast"],
    )
    assert_tf(
        [
            tf.image.adjust_brightness(PIXELS, 0.5),
            tf.image.adjust_brightness(tf.constant([[[10, 250, 30]]], tf.uint8), 0.1),
        ],
        TF["adjust_brightness"],
    )


def test_convert_image_dtype_as_tf():
    assert_tf(
        [
            tf.image.convert_image_dtype(tf.constant([0, 128, 255], tf.uint8), tf.float32),
            tf.image.convert_image_dtype(tf.constant([0.0, 0.5, 1.0, 1.2]), tf.uint8),
            tf.image.convert_image_dtype(tf.constant([0.0, 0.5, 1.0, 1.2]), tf.uint8, saturate=True),
            tf.image.convert_image_dtype(tf.constant([0, 128, 255], tf.uint8), tf.int32),
        ],
        TF["convert_image_dtype"],
    )


def test_autodiff_guide_adjust_contrast_has_no_gradient_registered():
    # The autodiff guide's cell, verbatim (site/en/guide/autodiff.ipynb).
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)

    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)

    with pytest.raises(LookupError) as caught:
        print(tape.gradient(new_image, [image, delta]))
    value, message = TF["autodiff_guide_adjust_contrast"]
    assert f"{type(caught.value).__name__}: {caught.value}" == message
    assert_tf(new_image, value)


def test_lookup_error_only_when_a_gradient_must_pass():
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    other = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        contrast = tf.image.adjust_contrast(image, 0.1)
        y = other * 3.0
    assert tape.gradient(y, other).numpy() == 3.0  # the tape stays usable
    assert tape.gradient(contrast, other) is None  # nothing has to pass through it
    with pytest.raises(LookupError):
        tape.gradient(contrast, image)
