"""keras.ops on tapeviz against Keras 3.15 on TF 2.21: values, dtypes, shapes and gradients.

The cases are tests/tf_reference/keras_ops_cases.py; Keras's results are in
tests/tf_reference/keras_ops_values.json, written by keras_ops_reference.py.
Then float64 central finite differences check the gradients of every
differentiable case (the ops are composites of primitives with rules, so this
checks the composition).
"""

import importlib
import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.keras import ops
from tests.tf_reference import keras_ops_cases as cases

REFERENCE = json.loads((pathlib.Path(cases.__file__).parent / "keras_ops_values.json").read_text())["cases"]


def _close(actual, expected, dtype):
    rtol, atol = (2e-3, 2e-3) if dtype == "float16" else (2e-5, 2e-5)
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_the_op_matches_keras_values_dtypes_and_gradients(name):
    expected = REFERENCE[name]
    if "error" in expected:  # Keras refuses: tapeviz refuses with the same words
        with pytest.raises(Exception) as refusal:
            cases.run(tf, ops, name)
        assert expected["message"][:40] in str(refusal.value)
        return
    got = cases.run(tf, ops, name)
    assert got["dtypes"] == expected["dtypes"]
    assert got["shapes"] == expected["shapes"]
    for value, want, dtype in zip(got["values"], expected["values"], expected["dtypes"]):
        if isinstance(want, str) or dtype == "bool" or isinstance(want, bool):
            assert value == want
        else:
            _close(value, want, dtype)
    assert len(got["grads"]) == len(expected["grads"])
    for grad, want in zip(got["grads"], expected["grads"]):
        if want is None:
            assert grad is None or not np.any(grad), "Keras has no gradient here"
        else:
            _close(grad, want, "float32")


def _case_names():
    return {name.split(":")[0] for name in cases.CASES}


def test_every_implemented_ops_name_has_a_keras_case():
    names = json.loads((pathlib.Path(__file__).parents[2] / "keras3_public_names.json").read_text())["namespaces"]
    implemented = [n for n in names["keras.ops"] if hasattr(ops, n)]
    untested = sorted(set(implemented) - _case_names())
    assert not untested, f"keras.ops names with no case in keras_ops_cases.py: {untested}"


@pytest.mark.parametrize("namespace", ["numpy", "nn", "linalg"])
def test_ops_submodules_import_and_share_the_functions(namespace):
    module = importlib.import_module(f"tapeviz.keras.ops.{namespace}")
    assert getattr(tf.keras.ops, namespace) is module
    shared = [n for n in module.__all__ if hasattr(ops, n)]
    assert shared and all(getattr(ops, n) is getattr(module, n) for n in shared)


# -- float64 finite differences ---------------------------------------------------------------


def _differentiable_cases():
    out = []
    for name in cases.CASES:
        want = REFERENCE[name]
        if "error" not in want and want.get("grads") and any(g is not None for g in want["grads"]):
            out.append(name)
    return sorted(out)


def _scalar(name, arrays):
    """sum(output * cos(0.3 k)) of one case on float64 inputs, the way the reference weights it."""
    expression, specs = cases.CASES[name]

    @ops.custom_gradient
    def clip_grad(x):
        return x * 3.0, lambda g: ops.clip(g, -0.1, 0.1) * 2.0

    scope = {"ops": ops, "np": np, "clip_grad": clip_grad}
    scope.update(zip("abcd", arrays))
    total = 0.0
    for out in cases._flatten(eval(expression, scope)):  # noqa: S307 - the case table's own expressions
        if tf.is_tensor(out) and out.dtype.is_floating:
            weight = np.cos(0.3 * np.arange(int(np.prod(out.shape)))).reshape(out.shape)
            total = total + ops.sum(ops.cast(out, "float64") * weight)
    return total


SKIP_FD = {
    "custom_gradient": "its gradient is made up on purpose",
    "stop_gradient": "half its gradient is cut on purpose",
    "add:float16_and_int": "computed in float16, where a 1e-6 step is lost",
    "image.resize": "bilinear resize computes in float32 (as TF), where a 1e-6 step is lost; its gradient is compared with Keras's",
}


@pytest.mark.parametrize("name", _differentiable_cases())
def test_gradients_match_float64_finite_differences(name):
    if name in SKIP_FD:
        pytest.skip(SKIP_FD[name])
    expression, specs = cases.CASES[name]
    arrays = [cases.input_array(spec, k) for k, spec in enumerate(specs)]
    arrays = [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == np.float32 else a for a in arrays]
    tensors = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in arrays]
    floats = [i for i, a in enumerate(arrays) if isinstance(a, np.ndarray) and a.dtype == np.float64]
    with tf.GradientTape() as tape:
        for i in floats:
            tape.watch(tensors[i])
        total = _scalar(name, tensors)
    grads = tape.gradient(total, [tensors[i] for i in floats])
    eps = 1e-6
    for i, grad in zip(floats, grads):
        symmetric = str(specs[i]).startswith("spd")  # TF's rule for a symmetric input: the symmetrised gradient
        numeric = np.zeros_like(arrays[i])
        for index in np.ndindex(arrays[i].shape):
            if symmetric and index[0] > index[1]:
                continue
            plus = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
            minus = [a.copy() if isinstance(a, np.ndarray) else a for a in arrays]
            for j in {index, index[::-1]} if symmetric else {index}:
                plus[i][j] += eps
                minus[i][j] -= eps
            up = _scalar(name, [tf.constant(a) if isinstance(a, np.ndarray) else a for a in plus])
            down = _scalar(name, [tf.constant(a) if isinstance(a, np.ndarray) else a for a in minus])
            numeric[index] = (float(up) - float(down)) / (2 * eps)
        # a gather's gradient is an IndexedSlices, as in TF: compare its dense form
        analytic = np.zeros_like(numeric) if grad is None else tf.convert_to_tensor(grad).numpy()
        if symmetric:
            analytic = np.triu(analytic + analytic.T - np.diag(np.diag(analytic)))
            numeric = np.triu(numeric)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_ops_are_recorded_under_their_keras_names():
    x = tf.constant([[0.5, -1.0, 2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        with tf.name_scope("my_layer"):
            y = ops.sum(ops.log_softmax(x) * ops.gelu(x))
    scopes = [e.scope for e in tape.recorded_ops]
    assert "my_layer/log_softmax" in scopes and "my_layer/gelu" in scopes and "my_layer/sum" in scopes
    assert all(s.split("/")[0] == "my_layer" for s in scopes)
    assert tape.gradient(y, x) is not None


def test_from_tapeviz_keras_import_ops_is_the_ops_module():
    from tapeviz.keras import ops as imported

    assert imported is tf.keras.ops and imported.numpy.matmul is imported.matmul
