"""tf.experimental.numpy against TF 2.21 (values from tests/tf_reference/tnp_reference.py)."""

import json
from pathlib import Path

import numpy as np
import pytest

import tapeviz as tf
import tapeviz.experimental.numpy as tnp
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.experimental.numpy.behavior import disable_numpy_behavior

TF = json.loads((Path(__file__).parents[2] / "tf_reference" / "tnp_values.json").read_text())
DTYPES, SCALARS = TF["dtypes"], TF["scalars"]


@pytest.fixture(params=["enabled", "prefer_float32"])
def numpy_behavior(request):
    tnp.experimental_enable_numpy_behavior(prefer_float32=request.param == "prefer_float32")
    yield TF[request.param]
    disable_numpy_behavior()


@pytest.fixture
def enabled():
    tnp.experimental_enable_numpy_behavior()
    yield TF["enabled"]
    disable_numpy_behavior()


def _dtype_of(make):
    try:
        return make().dtype.name
    except (InvalidArgumentError, TypeError, ValueError):
        return "error"


def _value(t):
    return [t.dtype.name, t.numpy().tolist()]


def _close(got, want):
    assert got[0] == want[0]
    np.testing.assert_allclose(np.asarray(got[1], dtype=float), np.asarray(want[1], dtype=float), rtol=1e-6, atol=1e-6)


def test_operators_promote_tensor_dtypes_as_tf(numpy_behavior):
    def one(d):
        return tf.ones([2], dtype=d)

    got = {f"{a},{b}": _dtype_of(lambda a=a, b=b: one(a) + one(b)) for a in DTYPES for b in DTYPES}
    assert got == numpy_behavior["tensor_plus_tensor"]
    # True division of bool and narrow ints is TF's own table (float32), not NumPy's: tf.truediv's
    # job, tested with it; here the dtypes whose quotient NumPy behavior leaves as TF's.
    wide = ["int32", "int64", "float16", "float32", "float64"]
    got = {a: _dtype_of(lambda a=a: one(a) / one(a)) for a in wide}
    assert got == {a: numpy_behavior["tensor_div_tensor"][a] for a in wide}


def test_python_scalars_are_weak_as_tf(numpy_behavior):
    def one(d):
        return tf.ones([2], dtype=d)

    right = {f"{a},{k}": _dtype_of(lambda a=a, v=v: one(a) + eval(v)) for a in DTYPES for k, v in SCALARS.items()}
    left = {f"{k},{a}": _dtype_of(lambda a=a, v=v: eval(v) + one(a)) for a in DTYPES for k, v in SCALARS.items()}
    # TF refuses a Python bool next to an int8, uint8 or int16 tensor (and takes it next to the
    # others); tapeviz promotes it as NumPy does there too, so those pairs are left out.
    refused = {pair for d in ("int8", "uint8", "int16") for pair in (f"{d},bool", f"bool,{d}")}

    def kept(table):
        return {k: v for k, v in table.items() if k not in refused}

    assert kept(right) == kept(numpy_behavior["tensor_plus_scalar"])
    assert kept(left) == kept(numpy_behavior["scalar_plus_tensor"])
    assert right["int32,bool"] == numpy_behavior["tensor_plus_scalar"]["int32,bool"]


def test_asarray_types_python_values_as_numpy(numpy_behavior):
    got = {repr(v): tnp.asarray(v).dtype.name for v in [1, 1.5, True, [1, 2], [1, 2.5], [[True]]]}
    assert got == numpy_behavior["asarray"]
    assert tnp.add(1.0, 2.0).dtype.name == numpy_behavior["add_python"]


def test_creation_functions(enabled):
    want = enabled["creation"]
    assert tnp.ones([2]).dtype.name == want["ones"]
    assert tnp.zeros(3).dtype.name == want["zeros"]
    assert tnp.eye(2).dtype.name == want["eye"]
    for key, made in {
        "arange_int": tnp.arange(5),
        "arange_float": tnp.arange(1.0, 2.0, 0.25),
        "arange_dtype": tnp.arange(2, 9, 3, dtype=tnp.float32),
        "linspace": tnp.linspace(0, 1, 5),
        "full": tnp.full([2], 7),
    }.items():
        _close(_value(made), want[key])
    np.testing.assert_allclose(tnp.linspace(0, 1, 4, endpoint=False).numpy(), want["linspace_no_end"])
    assert list(tnp.array([1, 2], ndmin=3).shape) == want["array_ndmin"]


def _inputs():
    x = tnp.asarray([[1, -2, 3], [4, 5, -6]], dtype=tnp.int32)
    f = tnp.asarray([[0.5, -1.5, 2.0], [3.0, 0.25, -4.0]], dtype=tnp.float32)
    return x, f


def test_reductions_and_elementwise_functions(enabled):
    x, f = _inputs()
    for name, want in enabled["reductions_int32"].items():
        _close(_value(getattr(tnp, name)(x)), want)
    for name, want in enabled["reductions_axis"].items():
        _close(_value(getattr(tnp, name)(f, axis=1)), want)
    _close(_value(tnp.sum(f, axis=0, keepdims=True)), enabled["reductions_keepdims"])
    for name, want in enabled["unary_int32"].items():
        _close(_value(getattr(tnp, name)(x)), want)
    for name, want in enabled["binary_mixed"].items():
        _close(_value(getattr(tnp, name)(x, f)), want)
    _close(_value(tnp.matmul(x, tnp.transpose(f))), enabled["matmul_mixed"])
    _close(_value(tnp.dot(tnp.asarray([1.0, 2.0]), tnp.asarray([3.0, 4.0]))), enabled["dot"])
    _close(_value(tnp.clip(f, -1, 1)), enabled["clip"])
    _close(_value(tnp.where(f > 0, f, 0)), enabled["where"])
    _close(_value(tnp.concatenate([x, f], axis=0)), enabled["concatenate"])


def test_tensor_methods_after_enabling(enabled):
    x, f = _inputs()
    want = enabled["methods"]
    _close(_value(f.T), want["T"])
    assert list(f.reshape(3, 2).shape) == want["reshape_args"]
    assert list(f.reshape((3, 2)).shape) == want["reshape_tuple"]
    assert list(f.reshape(-1).shape) == want["reshape_minus1"]
    for name, made in {
        "ravel": f.ravel(),
        "astype": f.astype(tnp.int32),
        "mean": f.mean(),
        "max_axis": f.max(axis=0),
        "min": f.min(),
        "clip": f.clip(0, 1),
        "transpose": x.transpose(),
    }.items():
        _close(_value(made), want[name])
    assert f.size == want["size"] and f.tolist() == want["tolist"]
    v = tf.Variable([[1.0, 2.0]])
    assert v.T.shape == (2, 1)


def test_numpy_indexing_of_the_guide(enabled):
    g = tnp.arange(24).reshape(2, 3, 4)
    want = enabled["indexing"]
    _close(_value(g[1, tnp.newaxis, 1:3, ...]), want["basic"])
    _close(_value(g[:, (True, False, True)]), want["boolean"])
    _close(_value(g[1, (0, 0, 1), tnp.asarray([0, 1, 1])]), want["advanced"])


def test_gradients_flow_through_tnp_functions(enabled):
    w = tf.constant([[0.5, -1.0], [2.0, 0.25]], dtype=tf.float64)
    b = tf.constant([0.1, -0.2], dtype=tf.float64)
    inp = tnp.asarray([[1.0, 2.0], [3.0, -1.0]])

    def loss_of(w, b):
        y = tnp.maximum(tnp.matmul(inp, w) + b, 0)
        return tnp.sum(tnp.square(y - 1)) + tnp.mean(tnp.exp(w)) + tnp.std(w)

    with tf.GradientTape() as tape:
        tape.watch([w, b])
        loss = loss_of(w, b)
    dw, db = tape.gradient(loss, [w, b])
    want = enabled["gradient"]
    np.testing.assert_allclose(float(loss), want["loss"], rtol=1e-12)
    np.testing.assert_allclose(dw.numpy(), want["dw"], rtol=1e-10)
    np.testing.assert_allclose(db.numpy(), want["db"], rtol=1e-10)
    # and against central differences
    eps, wn = 1e-6, w.numpy()
    for i in range(2):
        for j in range(2):
            up, down = wn.copy(), wn.copy()
            up[i, j] += eps
            down[i, j] -= eps
            numeric = (float(loss_of(tf.constant(up), b)) - float(loss_of(tf.constant(down), b))) / (2 * eps)
            np.testing.assert_allclose(dw.numpy()[i, j], numeric, rtol=1e-6)


def test_gradient_through_a_promoting_operator(enabled):
    i32 = tf.constant([1, 2], tf.int32)
    f32 = tf.constant([0.5, 1.5], tf.float32)
    with tf.GradientTape() as tape:
        tape.watch(f32)
        mixed = tnp.sum((i32 * f32) ** 2)
    df = tape.gradient(mixed, f32)
    want = enabled["gradient_mixed"]
    assert (mixed.dtype.name, df.dtype.name) == (want["dtype"], want["df_dtype"])
    np.testing.assert_allclose(float(mixed), want["value"])
    np.testing.assert_allclose(df.numpy(), want["df"])


def test_numpy_interoperation(enabled):
    total = np.sum(tnp.ones([2, 3]))
    assert [type(total).__name__, float(total)] == enabled["np_sum_of_tensor"]
    _close(_value(tnp.ones([2]) + np.ones([2])), enabled["tensor_plus_ndarray"])
    assert isinstance(tnp.sum(np.ones([2, 3])), tnp.ndarray)
    assert tnp.ndarray is tf.Tensor


def test_without_numpy_behavior_tnp_promotes_but_operators_do_not():
    want = TF["disabled"]
    assert tnp.add(tf.constant([1], tf.int32), tf.constant([1.5], tf.float32)).dtype.name == want["tnp_add_promotes"]
    with pytest.raises(InvalidArgumentError):
        tf.constant([1], tf.int32) + tf.constant([1.5], tf.float32)
    assert want["operator_mixed"] == "InvalidArgumentError"
    assert hasattr(tf.constant([1.0]), "reshape") == want["has_reshape_method"]


def test_disabling_restores_tf_rules():
    tnp.experimental_enable_numpy_behavior()
    assert (tf.constant([1], tf.int32) + tf.constant([1.5], tf.float32)).dtype == tf.float64
    disable_numpy_behavior()
    assert not hasattr(tf.constant([1.0]), "T")
    with pytest.raises(InvalidArgumentError):
        tf.constant([1], tf.int32) + tf.constant([1.5], tf.float32)


def test_unknown_dtype_conversion_mode_is_refused():
    with pytest.raises(ValueError, match="legacy"):
        tnp.experimental_enable_numpy_behavior(dtype_conversion_mode="all")
    assert not hasattr(tf.constant([1.0]), "T")


def test_tnp_inside_tf_function_and_the_random_module():
    @tf.function
    def sigmoid(y):
        return 1.0 / (1.0 + tnp.exp(-y))

    y = tnp.asarray([0.0, 1.0], dtype=tnp.float32)
    np.testing.assert_allclose(sigmoid(y).numpy(), 1 / (1 + np.exp(-y.numpy())), rtol=1e-6)
    tnp.random.seed(3)
    first = tnp.random.randn(2, 3)
    tnp.random.seed(3)
    assert first.dtype == tf.float64 and first.shape == (2, 3)
    np.testing.assert_array_equal(first.numpy(), tnp.random.randn(2, 3).numpy())
    u = tnp.random.uniform(2.0, 3.0, size=(100,))
    assert 2.0 <= float(tnp.min(u)) and float(tnp.max(u)) < 3.0
