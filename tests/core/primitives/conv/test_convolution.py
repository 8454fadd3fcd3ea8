"""Convolutions: against TF 2.21's numbers, and the geometry the rule cases add (dilations, NCHW, transposes).

TF's numbers are in tests/tf_reference/conv_values.py, produced by
tests/tf_reference/conv_reference.py from the cases in conv_cases.py. TF's
CPU kernels refuse NCHW, so tapeviz's NCHW results are checked against the
same NHWC numbers, transposed.
"""

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import backend as B
from tapeviz import keras
from tapeviz.core import finite_differences as testing
from tapeviz.core.primitives.conv import convolution
from tests.rule_cases.conv import VARIANTS
from tests.tf_reference import conv_cases
from tests.tf_reference.conv_values import VALUES

TO_NCHW, TO_NHWC = (0, 3, 1, 2), (0, 2, 3, 1)


def test_every_case_has_tf_values():
    assert set(conv_cases.CASES) == set(VALUES)


@pytest.mark.parametrize("name", sorted(conv_cases.CASES))
def test_matches_tf(name):
    got, expected = conv_cases.run(tf, name), VALUES[name]
    for key in ("output", "input_grad", "filter_grad"):
        np.testing.assert_allclose(got[key], expected[key], rtol=2e-5, atol=2e-5, err_msg=f"{name}: {key}")


def _nchw_case(name):
    """The case run channels first: output and gradients, returned in NHWC to compare with TF's."""
    kind, _, _, strides, padding, dilations, out_shape = conv_cases.CASES[name]
    x_nhwc, w_array = conv_cases.arrays(name)
    x, w = tf.constant(x_nhwc.transpose(TO_NCHW)), tf.constant(w_array)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        if kind == "conv2d":
            out = tf.nn.conv2d(x, w, strides, padding, data_format="NCHW", dilations=dilations)
        else:
            shape = [out_shape[i] for i in TO_NCHW]
            out = tf.nn.conv2d_transpose(x, w, shape, strides, padding, data_format="NCHW")
        weights = conv_cases.weights(tuple(np.array(out.shape)[list(TO_NHWC)])).transpose(TO_NCHW)
        loss = tf.reduce_sum(out * weights)
    gx, gw = tape.gradient(loss, [x, w])
    return {
        "output": out.numpy().transpose(TO_NHWC),
        "input_grad": gx.numpy().transpose(TO_NHWC),
        "filter_grad": gw.numpy(),
    }


@pytest.mark.parametrize("name", sorted(conv_cases.CASES))
def test_nchw_matches_tf_nhwc_transposed(name):
    got, expected = _nchw_case(name), VALUES[name]
    for key in ("output", "input_grad", "filter_grad"):
        np.testing.assert_allclose(got[key], expected[key], rtol=2e-5, atol=2e-5, err_msg=f"{name}: {key}")


def _arrays(case):
    return [np.array(a, dtype=np.float64) for a in case.inputs]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_first_order(name):
    case = VARIANTS[name]
    arrays = _arrays(case)
    weights = testing.projection_weights(case.fn, arrays)
    analytic = testing.analytic_gradients(case.fn, arrays, weights)
    numeric = testing.numeric_gradients(case.fn, arrays, weights, eps=case.eps)
    for position, (a, n) in enumerate(zip(analytic, numeric)):
        assert a is not None, f"{name}: no gradient for input {position}"
        np.testing.assert_allclose(a, n, rtol=case.tol, atol=case.tol, err_msg=f"{name} input {position}")


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_second_order(name):
    case = VARIANTS[name]
    arrays = _arrays(case)
    weights = testing.projection_weights(case.fn, arrays)
    vectors = [np.random.default_rng(1).uniform(-1, 1, size=a.shape) for a in arrays]
    analytic = testing.hessian_vector(case.fn, arrays, weights, vectors)
    numeric = testing.numeric_hessian_vector(case.fn, arrays, weights, vectors, eps=max(case.eps, 1e-5))
    for position, (a, n) in enumerate(zip(analytic, numeric)):
        expected = np.zeros_like(n) if a is None else a  # bilinear: no second derivative in one input alone
        np.testing.assert_allclose(expected, n, rtol=1e-4, atol=1e-4, err_msg=f"{name} input {position}")


@pytest.mark.parametrize("kernel", ["_conv2d", "_conv2d_backprop_input", "_conv2d_backprop_filter"])
def test_blocks_of_images_give_the_whole_batch_result(kernel, monkeypatch):
    """im2col a block at a time: tiny blocks (one image each) give the same numbers as one block."""
    rng = np.random.default_rng(3)
    x, w = B.asarray(rng.standard_normal((5, 6, 7, 3))), B.asarray(rng.standard_normal((3, 2, 3, 4)))
    g = B.asarray(rng.standard_normal((5, 3, 7, 4)))
    calls = {
        "_conv2d": lambda: convolution._conv2d(x, w, (2, 1), "SAME"),
        "_conv2d_backprop_input": lambda: convolution._conv2d_backprop_input(g, w, x.shape, (2, 1), "SAME"),
        "_conv2d_backprop_filter": lambda: convolution._conv2d_backprop_filter(x, g, w.shape, (2, 1), "SAME"),
    }
    whole = B.to_numpy(calls[kernel]())
    monkeypatch.setattr(convolution, "_BLOCK_BYTES", 1)
    assert len(convolution._Conv(x.shape, w.shape, (2, 1), "SAME", (1, 1)).image_blocks(18, 8)) == 5
    np.testing.assert_allclose(B.to_numpy(calls[kernel]()), whole, rtol=1e-12, atol=1e-12)


def test_bad_geometry_is_refused_clearly():
    x, w = tf.ones((1, 4, 4, 2)), tf.ones((2, 2, 2, 1))
    with pytest.raises(ValueError, match="data_format must be 'NHWC' or 'NCHW'"):
        tf.nn.conv2d(x, w, 1, "SAME", data_format="NCWH")
    with pytest.raises(ValueError, match="must be positive"):
        tf.nn.conv2d(x, w, 1, "SAME", dilations=0)
    with pytest.raises(ValueError, match="window .* is larger than the input"):
        tf.nn.conv2d(x, w, 1, "VALID", dilations=4)  # a span of 5 over 4 pixels


def _same_weights(a, b):
    for u, v in zip(a.weights, b.weights):
        v.assign(u)


@pytest.mark.parametrize(
    "make",
    [
        lambda fmt: keras.layers.Conv2D(3, (3, 2), strides=(2, 1), padding="same", data_format=fmt),
        lambda fmt: keras.layers.Conv2D(3, 3, dilation_rate=(2, 1), data_format=fmt),
        lambda fmt: keras.layers.Conv2DTranspose(3, 3, strides=2, padding="same", data_format=fmt),
        lambda fmt: keras.layers.Conv2DTranspose(2, (2, 3), strides=(2, 1), data_format=fmt),
    ],
)
def test_keras_channels_first_is_channels_last_transposed(make):
    x = np.random.default_rng(0).standard_normal((2, 7, 6, 4)).astype(np.float32)
    last, first = make("channels_last"), make("channels_first")
    y_last = last(x)
    first.build((2, 4, 7, 6))
    _same_weights(last, first)
    x_first = tf.constant(x.transpose(TO_NCHW))
    with tf.GradientTape() as tape:
        tape.watch(x_first)
        y_first = first(x_first)
    np.testing.assert_allclose(y_first.numpy().transpose(TO_NHWC), y_last.numpy(), rtol=1e-5, atol=1e-5)
    assert tape.gradient(y_first, x_first).shape == x_first.shape


def test_keras_dilated_transpose_grows_by_the_dilated_span():
    layer = keras.layers.Conv2DTranspose(2, 3, dilation_rate=2)  # span 5: 4 + 5 - 1 = 8
    assert tuple(layer(np.ones((1, 4, 4, 1), np.float32)).shape) == (1, 8, 8, 2)


def test_keras_refuses_strides_with_dilation_as_keras_does():
    with pytest.raises(ValueError, match="`strides > 1` not supported in conjunction with `dilation_rate > 1`"):
        keras.layers.Conv2D(2, 3, strides=2, dilation_rate=2)


def test_conv1d_dilations_and_ncw():
    x = np.random.default_rng(0).standard_normal((2, 9, 3)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((3, 3, 2)).astype(np.float32)
    nwc = tf.nn.conv1d(x, w, 1, "SAME", dilations=2).numpy()
    expected = tf.nn.conv2d(x[:, None], w[None], 1, "SAME", dilations=(1, 2)).numpy()[:, 0]
    np.testing.assert_allclose(nwc, expected, rtol=1e-6)
    ncw = tf.nn.conv1d(x.transpose(0, 2, 1), w, [1, 1, 1], "SAME", data_format="NCW", dilations=[1, 2, 1])
    np.testing.assert_allclose(ncw.numpy().transpose(0, 2, 1), nwc, rtol=1e-6)
