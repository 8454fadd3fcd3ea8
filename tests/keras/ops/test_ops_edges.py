"""keras.ops on edge inputs against Keras 3 on TF 2.21 (tests/tf_reference/keras_ops_edge_cases.py).

Every case compares values (NaN-aware, infinities and signed zeros exact),
dtypes, shapes and gradients with the stored Keras results. A case that
differs fails unless it is listed below with its reason (docs/tf-map.md,
"keras.ops on edge inputs", gives the same reasons); a listed case that
starts agreeing fails too, so the list stays true.
"""

import json
import pathlib
import re
import warnings

import pytest

import tapeviz as tf
from tapeviz.keras import ops
from tests.tf_reference import keras_ops_edge_cases as cases
from tests.tf_reference.keras_ops_edge_compare import differences

STORED = json.loads((pathlib.Path(cases.__file__).parent / "keras_ops_edge_values.json").read_text())
REFERENCE = STORED["cases"]

# Keras's TF backend refuses these dtypes because TF's kernel (or the float constant Keras mixes in) has no
# int, uint8, bool or complex version; tapeviz computes them (ints and bools in float32, as Keras's JAX and
# NumPy backends do).
TF_KERNEL_DTYPE_REFUSAL = re.compile(
    r"Value for attr 'T' of (int32|uint8|bool|complex64) is not in the list|Cannot convert .* to EagerTensor of "
    r"dtype (int32|uint8|bool)|`features.dtype` must be a floating point tensor|Could not find device for node"
)

TF_IS_WRONG = "TF is the one that is wrong here"
DOCUMENTED = {
    # TF/Keras's result is the wrong one (IEEE 754, C99 or NumPy give tapeviz's)
    "nextafter@inf_toward_zero": f"{TF_IS_WRONG}: nextafter(inf, 0) is the largest float32 (C, NumPy), TF says inf",
    "nextafter@specials": f"{TF_IS_WRONG}: nextafter(-inf, inf) is -3.4028235e38, TF says -inf",
    "nextafter@column": f"{TF_IS_WRONG}: nextafter(inf, -2) is 3.4028235e38, TF says inf",
    "hypot@specials": f"{TF_IS_WRONG}: hypot(inf, NaN) is inf (C99); TF's gradient at (0, 0) is 0, tapeviz's NaN",
    "hypot@column": f"{TF_IS_WRONG}: hypot(inf, NaN) is inf (C99)",
    "hypot@infs": "at hypot(inf, NaN) TF's gradient is 0, tapeviz's NaN (x / hypot is inf / inf)",
    "isclose@infs": f"{TF_IS_WRONG}: isclose(inf, inf) is True (NumPy); TF computes |inf - inf| = NaN",
    "isclose@equal_nan": f"{TF_IS_WRONG}: isclose(inf, inf) is True (NumPy)",
    "nancumsum@block_axis-2": f"{TF_IS_WRONG}: Keras's nan_to_num turns inf into the largest float before summing",
    "nancumsum@specials": f"{TF_IS_WRONG}: Keras's nan_to_num turns inf into the largest float before summing",
    "nancumprod@block_axis-2": f"{TF_IS_WRONG}: Keras's nan_to_num turns inf into the largest float",
    "nancumprod@specials": f"{TF_IS_WRONG}: Keras's nan_to_num turns inf into the largest float",
    "cumprod@block_axis-2": f"{TF_IS_WRONG}: TF's cumprod gradient divides by x and masks the zeros, so a "
    "zero after a NaN gets 0 where the product rule gives NaN",
    "cumprod@specials": f"{TF_IS_WRONG}: TF's cumprod gradient masks zeros (see cumprod@block_axis-2)",
    "hard_silu@specials": f"{TF_IS_WRONG}: the gradient of x * relu6(x + 3) / 6 at +inf is 1; TF gets inf * 0 = NaN",
    "hard_swish@specials": f"{TF_IS_WRONG}: the gradient at +inf is 1; TF gets inf * 0 = NaN",
    "sinc@zero": f"{TF_IS_WRONG}: sinc'(0) = 0; TF's gradient of sin(pi x) / (pi x) is 0/0 = NaN",
    "sinc@specials": f"{TF_IS_WRONG}: sinc'(-0.0) = 0; TF gives NaN",
    "vstack@specials": f"{TF_IS_WRONG}: vstack of two vectors is (2, n) (NumPy, Keras's other backends); "
    "Keras's TF backend concatenates them into one vector",
    "add@empty": f"{TF_IS_WRONG}: (0, 3) + (0, 3) is an empty (0, 3); Keras's TF backend turns it into a BiasAdd that refuses",
    "unique@specials": "Keras refuses only because TF has no gradient for Unique (the case takes gradients)",
    "slice_update@nan": "Keras refuses only because TF has no gradient for XlaDynamicUpdateSlice",
    "nanmedian@int_block_axis-2": "Keras's TF backend fails inside its own TensorArray on int input",
    "sparsemax@int_block_axis-1": "Keras's TF backend mixes int and float inside and fails; tapeviz computes in float32",
    # NaN and inf ordering and TF kernels that drop NaN
    "sort@specials": "NaN sorts last, as NumPy (and Keras's other backends); TF's sort puts NaN first",
    "argsort@specials": "NaN sorts last, as NumPy; TF's sort puts NaN first",
    "top_k@specials": "tapeviz's top_k ranks NaN below everything (NumPy's order); TF ranks it first",
    "searchsorted@specials": "a NaN value goes after everything (NumPy's order); TF puts it at 0",
    "max_pool@nan": "a window with a NaN gives NaN; TF's max-pool kernel skips NaNs",
    "softmax@block_axis-2": "a row with a NaN is all NaN (NaN in, NaN out); TF's kernel gives 0 beside the NaN",
    "softmax@specials": "a row with a NaN or +inf is all NaN; TF's kernel gives 0 beside it",
    "softmax@infs": "softmax([inf, 1, 0]) is all NaN here; TF gives [NaN, 0, 0]: neither is the limit [1, 0, 0]",
    "sparsemax@block_axis-2": "a row with a NaN is all NaN; TF's sort-based kernel ranks NaN first",
    "sparsemax@specials": "a row with a NaN or inf is all NaN; TF's kernel returns inf and 0s",
    # gradients at NaN or infinite inputs, where there is no right number
    "logaddexp@specials": "gradient at logaddexp(inf, inf): tapeviz 1 and 0 (the larger side), TF NaN",
    "logaddexp@column": "gradient at logaddexp(inf, inf): tapeviz 1 and 0, TF NaN",
    "logaddexp@infs": "gradient at logaddexp(-inf, -inf): tapeviz 1 and 0, TF NaN",
    "logaddexp2@specials": "gradient at logaddexp2(inf, inf): tapeviz 1 and 0, TF NaN",
    "logaddexp2@column": "gradient at logaddexp2(inf, inf): tapeviz 1 and 0, TF NaN",
    "logaddexp2@infs": "gradient at logaddexp2(-inf, -inf): tapeviz 1 and 0, TF NaN",
    "fmod@specials": "gradients at NaN or infinite inputs (tapeviz 1 and -trunc(x / y), TF NaN)",
    "fmod@column": "fmod(-0.0, inf) is -0.0 (C); Keras's sign(x) * floormod gives 0.0; gradients at NaN differ",
    "elu@specials": "elu(-0.0) is 0.0 here, -0.0 in TF; at a NaN input TF's EluGrad passes the gradient, tapeviz gives 0",
    "selu@specials": "at a NaN input TF's SeluGrad passes the gradient, tapeviz gives 0",
    "cbrt@specials": "cbrt's gradient at +inf is NaN here (pow of |x| times sign), 0 in TF",
    "ldexp@specials": "gradient of ldexp(inf, 2) with respect to x: 2**2 here, 1 in TF",
    "vander@specials": "gradient of vander at a NaN: tapeviz finite for the powers that do not use it, TF NaN",
    # signed zeros and complex details
    "heaviside@specials": "heaviside(0, -0.0) is 0.0 here, -0.0 in TF (the h argument's sign)",
    "mod@specials": "mod(100, -100) is -0.0 here (NumPy), 0.0 in TF; a gradient at NaN differs",
    "mod@column": "mod(-0.0, -2) is 0.0 here, -0.0 in TF",
    "mod@negative": "mod(-0.0, 1) is 0.0 here, -0.0 in TF; the gradient at inf differs",
    "slogdet@singular": "the sign of a singular matrix's determinant is 0.0 here, -0.0 in TF",
    "full_like@negative_zero": "full_like(x, -0.0) keeps -0.0 here; TF's fill gives 0.0",
    "arctanh@complex64": "arctanh(-0.5j) has real part 0.0 here, -0.0 in TF",
    "sinc@complex64": "a signed zero in the imaginary part",
    "reciprocal@complex64": "1 / 0j is inf+nanj here (NumPy), nan+nanj in TF",
    # what tapeviz cannot or does not do
    "sum@uint8": "tapeviz has no uint32: the sum of uint8 is int32, Keras's uint32",
    "signbit@complex64": "signbit of a complex tensor is not supported (raises NumPy's TypeError)",
    "diff@bool": "diff of a bool tensor is not supported (raises); Keras gives the xor of neighbours",
    "conj@bool": "tapeviz returns the bools; Keras refuses",
    "conjugate@bool": "tapeviz returns the bools; Keras refuses",
    "real@bool": "tapeviz returns the bools; Keras refuses",
    "fabs@complex64": "tapeviz returns |x|; Keras refuses complex input",
    "fmod@bool": "tapeviz computes in int32; TF's FloorMod has no bool kernel",
}


def _tapeviz_result(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return cases.run(tf, ops, name), None
        except Exception as exc:  # noqa: BLE001 - a refusal is compared with Keras's
            return None, exc


def _computes_what_tf_refuses(name, got):
    want = REFERENCE[name]
    return got is not None and "error" in want and TF_KERNEL_DTYPE_REFUSAL.search(want["message"]) is not None


def test_the_table_is_keras_3_on_tensorflow_and_covers_the_implemented_ops():
    assert STORED["backend"] == "tensorflow" and STORED["tensorflow"].startswith("2.21")
    assert set(REFERENCE) == set(cases.CASES)
    names = json.loads((pathlib.Path(__file__).parents[2] / "keras3_public_names.json").read_text())["namespaces"]
    implemented = {n for n in names["keras.ops"] if hasattr(ops, n)}
    covered = {name.split("@")[0] for name in cases.CASES}
    not_numeric = {"custom_gradient", "dtype"}  # no number to compare at an edge
    assert implemented - covered - not_numeric == set()
    assert set(DOCUMENTED) <= set(cases.CASES)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_agrees_with_keras_on_tensorflow(name):
    got, error = _tapeviz_result(name)
    found = differences(got, REFERENCE[name], error)
    if name in DOCUMENTED:
        assert found, f"{name} now agrees with Keras: remove it from the documented differences"
    elif not _computes_what_tf_refuses(name, got):
        assert not found, "; ".join(found)


def test_the_known_faults_are_fixed():
    """nextafter(inf, 0), cholesky of a matrix that is not positive definite, arccosh's gradient at inf."""
    assert float(ops.nextafter(tf.constant(float("inf")), 0.0)) == 3.4028234663852886e38
    with pytest.raises(ValueError, match="Cholesky decomposition failed"):
        ops.cholesky(tf.constant([[1.0, 2.0], [2.0, 1.0]]))
    x = tf.constant([float("inf"), 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = ops.sum(ops.arccosh(x))
    assert tape.gradient(y, x).numpy().tolist() == pytest.approx([0.0, 1 / 3**0.5])
