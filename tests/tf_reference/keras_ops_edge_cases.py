"""keras.ops on edge inputs (NaN, inf, -0.0, empty, int/uint8/bool/complex, broadcasting, negative axes).

Shared by keras_ops_edge_reference.py (Keras 3 on TF 2.21) and
tests/keras/ops/test_ops_edges.py (tapeviz). The table is built from families:
each op of a family gets that family's edge inputs, so adding an op is one
word in a list. A case is ``name -> (expression, inputs)``: the expression
uses ``ops`` and the inputs bound to a, b, c; an input is a key of ``INPUTS``
or a literal value. ``run`` returns outputs (values, dtypes, shapes) and the
gradient of sum(output * cos(0.3 k)) with respect to each float input.
Nothing here imports TensorFlow or tapeviz.
"""

import math

import numpy as np

NAN, INF = float("nan"), float("inf")

INPUTS = {
    # every special float32 value next to ordinary ones, and a partner for binary ops
    "specials": np.array([NAN, INF, -INF, -0.0, 0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -3.5, 100.0], np.float32),
    "partners": np.array([1.0, INF, INF, 0.0, -0.0, -0.0, NAN, -INF, 0.0, 2.0, 3.0, -100.0], np.float32),
    "column": np.array([[NAN], [-0.0], [1.0], [INF]], np.float32),  # (4, 1) with (3,): broadcasting
    "row": np.array([0.0, -2.0, INF], np.float32),
    "empty": np.zeros((0, 3), np.float32),
    "int32": np.array([-3, -1, 0, 1, 2, 7], np.int32),
    "int32_b": np.array([2, -2, 3, 1, 5, 3], np.int32),
    "uint8": np.array([0, 1, 2, 127, 200, 255], np.uint8),
    "uint8_b": np.array([3, 255, 1, 1, 2, 2], np.uint8),
    "bool": np.array([True, False, True, False]),
    "bool_b": np.array([True, True, False, False]),
    "complex64": np.array([1 + 2j, -0.5j, 0, -3 + 0j], np.complex64),
    # a (2, 3, 4) block with a NaN and an inf, for reductions along negative axes
    "block": np.array(
        [
            [[1.0, -2.0, 0.5, 3.0], [NAN, 1.0, -1.0, 2.0], [0.0, -0.0, 4.0, -4.0]],
            [[2.5, INF, -1.5, 1.0], [3.0, 2.0, 1.0, 0.0], [-2.0, -3.0, 0.25, 8.0]],
        ],
        np.float32,
    ),
    "int_block": np.arange(24, dtype=np.int32).reshape(2, 3, 4) % 7 - 3,
    "not_pd": np.array([[1.0, 2.0], [2.0, 1.0]], np.float32),
    "singular": np.array([[1.0, 2.0], [2.0, 4.0]], np.float32),
    "square_nan": np.array([[1.0, NAN], [0.5, 2.0]], np.float32),
    "empty_square": np.zeros((0, 0), np.float32),
}

UNARY = """abs absolute angle arccos arccosh arcsin arcsinh arctan arctanh cbrt ceil conj conjugate copy cos cosh
deg2rad erf erfc erfinv exp exp2 expm1 fabs floor imag isfinite isinf isnan isneginf isposinf isreal log log10
log1p log2 logical_not nan_to_num negative rad2deg real reciprocal round rsqrt sign signbit sin sinc sinh sqrt
square tan tanh trunc celu elu gelu hard_shrink hard_sigmoid hard_silu hard_swish hard_tanh leaky_relu
log_sigmoid relu relu6 selu sigmoid silu soft_shrink softplus softsign sparse_plus sparse_sigmoid squareplus
swish tanh_shrink""".split()
UNARY_INPUTS = ["specials", "empty", "int32", "uint8", "bool", "complex64"]

BINARY = """add arctan2 divide divide_no_nan equal floor_divide fmax fmin fmod greater greater_equal heaviside hypot
less less_equal logaddexp logaddexp2 logical_and logical_or logical_xor maximum minimum mod multiply nextafter
not_equal power subtract true_divide""".split()
BINARY_INPUTS = [("specials", "partners"), ("column", "row"), ("empty", "empty"), ("int32", "int32_b"),
                 ("uint8", "uint8_b"), ("bool", "bool_b")]  # fmt: skip
INT_BINARY = """bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift left_shift right_shift gcd
lcm""".split()

REDUCTIONS = """all any amax amin argmax argmin count_nonzero logsumexp max mean median min nanargmax nanargmin nanmax
nanmean nanmedian nanmin nanprod nanstd nansum nanvar prod ptp std sum var""".split()
ALONG_AXIS = """cumsum cumprod nancumsum nancumprod sort argsort softmax log_softmax sparsemax diff flip""".split()


def _cases():
    cases = {}
    for op in UNARY:
        for name in UNARY_INPUTS:
            cases[f"{op}@{name}"] = (f"ops.{op}(a)", [name])
    for op in BINARY:
        for first, second in BINARY_INPUTS:
            cases[f"{op}@{first}"] = (f"ops.{op}(a, b)", [first, second])
    for op in INT_BINARY:
        cases[f"{op}@int32"] = (f"ops.{op}(a, ops.abs(b))", ["int32", "int32_b"])
        cases[f"{op}@uint8"] = (f"ops.{op}(a, b % 8)", ["uint8", "uint8_b"])
    for op in ["bitwise_invert", "bitwise_not"]:
        cases[f"{op}@int32"] = (f"ops.{op}(a)", ["int32"])
        cases[f"{op}@uint8"] = (f"ops.{op}(a)", ["uint8"])
        cases[f"{op}@bool"] = (f"ops.{op}(a)", ["bool"])
    for op in REDUCTIONS:
        cases[f"{op}@block_axis-1"] = (f"ops.{op}(a, axis=-1)", ["block"])
        cases[f"{op}@specials"] = (f"ops.{op}(a)", ["specials"])
        cases[f"{op}@int_block_axis-2"] = (f"ops.{op}(a, axis=-2)", ["int_block"])
        cases[f"{op}@bool"] = (f"ops.{op}(a)", ["bool"])
        cases[f"{op}@empty_axis-1"] = (f"ops.{op}(a, axis=-1)", ["empty"])
    for op in ["sum", "mean", "max", "min", "prod", "std", "var", "logsumexp", "any", "all", "nansum", "nanmean"]:
        cases[f"{op}@block_axes-1-3_keepdims"] = (f"ops.{op}(a, axis=(-1, -3), keepdims=True)", ["block"])
    for op in ALONG_AXIS:
        cases[f"{op}@block_axis-2"] = (f"ops.{op}(a, axis=-2)", ["block"])
        cases[f"{op}@specials"] = (f"ops.{op}(a, axis=-1)", ["specials"])
        cases[f"{op}@int_block_axis-1"] = (f"ops.{op}(a, axis=-1)", ["int_block"])
        cases[f"{op}@empty_axis-1"] = (f"ops.{op}(a, axis=-1)", ["empty"])
    cases.update(SINGLE)
    return cases


# Ops that need their own arguments: one or a few edge cases each.
SINGLE = {
    "nextafter@inf_toward_zero": ("ops.nextafter(a, 0.0)", ["specials"]),
    "cholesky@not_positive_definite": ("ops.cholesky(a)", ["not_pd"]),
    "cholesky@nan": ("ops.cholesky(a)", ["square_nan"]),
    "arccosh@grad_at_inf": ("ops.arccosh(a)", [np.array([1.5, INF, 100.0], np.float32)]),
    "det@singular": ("ops.det(a)", ["singular"]),
    "det@nan": ("ops.det(a)", ["square_nan"]),
    "inv@nan": ("ops.inv(a)", ["square_nan"]),
    "slogdet@singular": ("ops.slogdet(a)", ["singular"]),
    "logdet@not_positive_definite": ("ops.logdet(a)", ["not_pd"]),
    "eigh@nan": ("ops.eigh(a)[0]", ["square_nan"]),
    "svd@empty": ("ops.svd(a, compute_uv=False)", ["empty"]),
    "norm@specials": ("ops.norm(a)", ["specials"]),
    "norm@empty": ("ops.norm(a)", ["empty"]),
    "norm@block_axis-1": ("ops.norm(a, axis=-1)", ["block"]),
    "matmul@empty": ("ops.matmul(a, ops.transpose(a))", ["empty"]),
    "matmul@nan_broadcast": ("ops.matmul(a, b)", ["block", np.ones((4, 2), np.float32)]),
    "matmul@int32": ("ops.matmul(ops.reshape(a, (2, 3)), ops.reshape(b, (3, 2)))", ["int32", "int32_b"]),
    "dot@specials": ("ops.dot(a, b)", ["specials", "partners"]),
    "vdot@specials": ("ops.vdot(a, b)", ["specials", "partners"]),
    "inner@specials": ("ops.inner(a, b)", ["specials", "partners"]),
    "outer@column_row": ("ops.outer(a, b)", ["column", "row"]),
    "cross@specials": (
        "ops.cross(a, b)",
        [np.array([NAN, 1.0, -0.0], np.float32), np.array([1.0, INF, 2.0], np.float32)],
    ),
    "einsum@block": ("ops.einsum('ijk,k->ij', a, b)", ["block", np.array([1.0, 0.0, -1.0, 2.0], np.float32)]),
    "tensordot@block": ("ops.tensordot(a, b, axes=1)", ["block", np.ones((4,), np.float32)]),
    "kron@specials": ("ops.kron(a, b)", [np.array([NAN, -0.0], np.float32), np.array([INF, 1.0], np.float32)]),
    "clip@specials": ("ops.clip(a, -1.0, 1.0)", ["specials"]),
    "clip@uint8": ("ops.clip(a, 1, 200)", ["uint8"]),
    "where@specials": ("ops.where(ops.greater(a, 0.0), a, b)", ["specials", "partners"]),
    "where@broadcast": ("ops.where(ops.isnan(a), b, a)", ["column", "row"]),
    "select@specials": ("ops.select([ops.less(a, 0.0), ops.isnan(a)], [a, b], 7.0)", ["specials", "partners"]),
    "ldexp@specials": (
        "ops.ldexp(a, b)",
        [np.array([NAN, INF, -0.0, 1.5, 3.0], np.float32), np.array([1, 2, 3, 200, -200], np.int32)],
    ),
    "threshold@specials": ("ops.threshold(a, 0.5, -1.0)", ["specials"]),
    "glu@block": ("ops.glu(a, axis=-1)", ["block"]),
    "normalize@block": ("ops.normalize(a, axis=-1)", ["block"]),
    "moments@block": ("ops.moments(a, axes=[-1])", ["block"]),
    "average@block": ("ops.average(a, axis=-1, weights=b)", ["block", np.array([1.0, 0.0, 2.0, 1.0], np.float32)]),
    "quantile@specials": ("ops.quantile(a, 0.4)", ["specials"]),
    "percentile@block": ("ops.percentile(a, 60.0, axis=-1)", ["block"]),
    "nanquantile@block": ("ops.nanquantile(a, 0.4, axis=-1)", ["block"]),
    "nanpercentile@specials": ("ops.nanpercentile(a, 60.0)", ["specials"]),
    "trace@block": ("ops.trace(a, axis1=-2, axis2=-1)", ["block"]),
    "diagonal@block": ("ops.diagonal(a, axis1=-1, axis2=-2)", ["block"]),
    "top_k@specials": ("ops.top_k(a, 4)", ["specials"]),
    "argpartition@specials": (
        "ops.sort(ops.argpartition(a, 3)[:3])",
        [np.array([3.0, -0.0, 1.0, -5.0, 2.0], np.float32)],
    ),
    "searchsorted@specials": (
        "ops.searchsorted(a, b)",
        [np.array([-INF, -1.0, 0.0, 2.0, INF], np.float32), "specials"],
    ),
    "digitize@specials": ("ops.digitize(a, [-1.0, 0.0, 1.0])", ["specials"]),
    "unique@specials": ("ops.unique(a)", [np.array([2.0, -0.0, 0.0, 2.0, -1.0], np.float32)]),
    "histogram@specials": (
        "ops.histogram(a, bins=3, range=(-1.0, 2.0))",
        [np.array([-1.0, -0.0, 0.5, 2.0, 1.0], np.float32)],
    ),
    "bincount@int32": ("ops.bincount(a)", [np.array([0, 3, 1, 3], np.int32)]),
    "count_nonzero@specials_axis-1": ("ops.count_nonzero(a, axis=-1)", ["block"]),
    "logaddexp@infs": (
        "ops.logaddexp(a, b)",
        [np.array([-INF, INF, -INF], np.float32), np.array([-INF, INF, 1.0], np.float32)],
    ),
    "softmax@infs": ("ops.softmax(a)", [np.array([INF, 1.0, 0.0], np.float32)]),
    "softmax@all_minus_inf": ("ops.softmax(a)", [np.array([-INF, -INF], np.float32)]),
    "log_softmax@all_minus_inf": ("ops.log_softmax(a)", [np.array([-INF, -INF], np.float32)]),
    "logsumexp@all_minus_inf": ("ops.logsumexp(a)", [np.array([-INF, -INF], np.float32)]),
    "power@zero_to_negative": (
        "ops.power(a, b)",
        [np.array([0.0, -0.0, 0.0, -0.0, -8.0], np.float32), np.array([-1.0, -1.0, 0.0, -2.0, 1.0 / 3.0], np.float32)],
    ),
    "power@int_negative_exponent": (
        "ops.power(a, b)",
        [np.array([2, 1, -1], np.int32), np.array([-1, -2, -3], np.int32)],
    ),
    "floor_divide@int_by_zero": (
        "ops.floor_divide(a, b)",
        [np.array([3, -3, 0], np.int32), np.array([0, 0, 0], np.int32)],
    ),
    "mod@int_by_zero": ("ops.mod(a, b)", [np.array([3, -3], np.int32), np.array([0, 0], np.int32)]),
    "mod@negative": (
        "ops.mod(a, b)",
        [np.array([-3.5, 3.5, -0.0, INF], np.float32), np.array([2.0, -2.0, 1.0, 1.0], np.float32)],
    ),
    "divide@int_by_zero": ("ops.divide(a, b)", [np.array([1, -1, 0], np.int32), np.array([0, 0, 0], np.int32)]),
    "round@halves": ("ops.round(a)", [np.array([0.5, 1.5, 2.5, -0.5, -2.5], np.float32)]),
    "round@decimals": ("ops.round(a, 1)", [np.array([0.25, 0.35, -0.05, NAN], np.float32)]),
    "cast@float_to_int": ("ops.cast(a, 'int32')", [np.array([1.9, -1.9, -0.0, 1e3], np.float32)]),
    "cast@float_to_uint8": ("ops.cast(a, 'uint8')", [np.array([1.9, 255.0, 0.0], np.float32)]),
    "cast@int_to_bool": ("ops.cast(a, 'bool')", ["int32"]),
    "saturate_cast@specials": ("ops.saturate_cast(a, 'uint8')", [np.array([-5.0, 300.0, 7.6, INF, -INF], np.float32)]),
    "nan_to_num@custom": ("ops.nan_to_num(a, nan=1.0, posinf=2.0, neginf=-2.0)", ["specials"]),
    "sqrt@negative_zero": ("ops.sqrt(a)", [np.array([-0.0, -1.0, 0.0], np.float32)]),
    "reciprocal@zeros": ("ops.reciprocal(a)", [np.array([0.0, -0.0], np.float32)]),
    "sign@int32": ("ops.sign(a)", ["int32"]),
    "arctan2@zeros": (
        "ops.arctan2(a, b)",
        [np.array([0.0, -0.0, 0.0, -0.0], np.float32), np.array([0.0, 0.0, -0.0, -0.0], np.float32)],
    ),
    "isclose@infs": (
        "ops.isclose(a, b)",
        [np.array([INF, -INF, NAN, INF], np.float32), np.array([INF, INF, NAN, 1e30], np.float32)],
    ),
    "isclose@equal_nan": ("ops.isclose(a, a, equal_nan=True)", ["specials"]),
    "allclose@specials": ("ops.allclose(a, a)", ["specials"]),
    "maximum@int_and_float": ("ops.maximum(a, 1.5)", ["int32"]),
    "add@uint8_overflow": ("ops.add(a, b)", ["uint8", "uint8_b"]),
    "multiply@int32_overflow": ("ops.multiply(a, 1000000000)", ["int32"]),
    "negative@uint8": ("ops.negative(a)", ["uint8"]),
    "abs@int32_min": ("ops.abs(a)", [np.array([-(2**31), 5], np.int32)]),
    "subtract@bool": ("ops.subtract(a, b)", ["bool", "bool_b"]),
    "mean@int32": ("ops.mean(a)", ["int32"]),
    "mean@uint8": ("ops.mean(a)", ["uint8"]),
    "sum@uint8": ("ops.sum(a)", ["uint8"]),
    "prod@bool": ("ops.prod(a)", ["bool"]),
    "cumsum@bool": ("ops.cumsum(a)", ["bool"]),
    "cumsum@uint8": ("ops.cumsum(a)", ["uint8"]),
    "cumprod@uint8": ("ops.cumprod(a)", ["uint8"]),
    "linspace@specials": ("ops.linspace(0.0, 1.0, 0)", []),
    "arange@negative_step": ("ops.arange(3, -3, -2)", []),
    "arange@float": ("ops.arange(0.0, 1.0, 0.3)", []),
    "eye@empty": ("ops.eye(0)", []),
    "tri@negative_k": ("ops.tri(3, 4, k=-1)", []),
    "full@nan": ("ops.full((2,), float('nan'))", []),
    "logspace@specials": ("ops.logspace(0.0, 2.0, 3)", []),
    "geomspace@negative": ("ops.geomspace(-1.0, -100.0, 3)", []),
    "repeat@empty": ("ops.repeat(a, 2, axis=-1)", ["empty"]),
    "tile@empty": ("ops.tile(a, (2, 1))", ["empty"]),
    "concatenate@empty": ("ops.concatenate([a, a], axis=-2)", ["empty"]),
    "stack@negative_axis": ("ops.stack([a, b], axis=-1)", ["specials", "partners"]),
    "expand_dims@negative_axis": ("ops.expand_dims(a, -1)", ["column"]),
    "squeeze@negative_axis": ("ops.squeeze(a, axis=-1)", ["column"]),
    "moveaxis@negative": ("ops.moveaxis(a, -1, 0)", ["block"]),
    "swapaxes@negative": ("ops.swapaxes(a, -1, -3)", ["block"]),
    "transpose@empty": ("ops.transpose(a)", ["empty"]),
    "reshape@minus_one": ("ops.reshape(a, (-1, 2))", ["block"]),
    "reshape@empty": ("ops.reshape(a, (3, -1))", ["empty"]),
    "take@negative_index": ("ops.take(a, [-1, 0], axis=-1)", ["block"]),
    "take_along_axis@negative_axis": ("ops.take_along_axis(a, b, axis=-1)", ["block", np.zeros((2, 3, 1), np.int32)]),
    "roll@negative": ("ops.roll(a, -2, axis=-1)", ["block"]),
    "pad@reflect": ("ops.pad(a, ((0, 0), (1, 2)), mode='reflect')", [np.array([[1.0, NAN, 3.0]], np.float32)]),
    "triu@negative_k": ("ops.triu(a, k=-1)", ["block"]),
    "tril@negative_k": ("ops.tril(a, k=-1)", ["block"]),
    "flip@negative_axis": ("ops.flip(a, axis=-1)", ["block"]),
    "rot90@negative": ("ops.rot90(a, k=-1, axes=(-2, -1))", ["block"]),
    "split@negative_axis": ("ops.split(a, 2, axis=-1)", ["block"]),
    "array_split@uneven": ("ops.array_split(a, 5)", ["specials"]),
    "get_item@negative": ("a[..., -1]", ["block"]),
    "slice@zero_size": ("ops.slice(a, (0, 1, 0), (2, 0, 4))", ["block"]),
    "one_hot@negative_index": ("ops.one_hot(a, 3)", [np.array([0, -1, 2, 3], np.int32)]),
    "multi_hot@out_of_range": ("ops.multi_hot(a, 3)", [np.array([[0, 2], [1, 1]], np.int32)]),
    "in_top_k@nan": (
        "ops.in_top_k(b, a, 1)",
        [np.array([[NAN, 1.0], [0.5, 0.5]], np.float32), np.array([0, 1], np.int32)],
    ),
    "binary_crossentropy@edges": (
        "ops.binary_crossentropy(a, b)",
        [np.array([0.0, 1.0, 1.0, 0.0], np.float32), np.array([0.0, 1.0, 0.0, 1.0], np.float32)],
    ),
    "categorical_crossentropy@zero_probs": (
        "ops.categorical_crossentropy(a, b)",
        [np.array([[0.0, 1.0], [1.0, 0.0]], np.float32), np.array([[1.0, 0.0], [0.0, 0.0]], np.float32)],
    ),
    "sparse_categorical_crossentropy@logits_inf": (
        "ops.sparse_categorical_crossentropy(a, b, from_logits=True)",
        [np.array([0, 1], np.int32), np.array([[INF, 0.0], [1.0, -INF]], np.float32)],
    ),
    "segment_sum@empty_segment": (
        "ops.segment_sum(a, b, num_segments=3)",
        [np.array([1.0, NAN, -0.0], np.float32), np.array([0, 0, 2], np.int32)],
    ),
    "segment_max@empty_segment": (
        "ops.segment_max(a, b, num_segments=3)",
        [np.array([1.0, 2.0, -0.0], np.float32), np.array([0, 0, 2], np.int32)],
    ),
    "segment_min@empty_segment": (
        "ops.segment_min(a, b, num_segments=3)",
        [np.array([1.0, 2.0, -0.0], np.float32), np.array([0, 0, 2], np.int32)],
    ),
    "segment_prod@empty_segment": (
        "ops.segment_prod(a, b, num_segments=3)",
        [np.array([1.0, 2.0, -0.0], np.float32), np.array([0, 0, 2], np.int32)],
    ),
    "vander@specials": ("ops.vander(a, 3)", [np.array([NAN, -0.0, 2.0], np.float32)]),
    "trapezoid@specials": ("ops.trapezoid(a)", ["specials"]),
    "correlate@specials": (
        "ops.correlate(a, b, mode='full')",
        [np.array([1.0, NAN, 2.0], np.float32), np.array([0.0, 1.0], np.float32)],
    ),
    "cdist@inf": ("ops.cdist(a, b)", [np.array([[0.0, INF]], np.float32), np.array([[1.0, 1.0]], np.float32)]),
    "solve@singular": ("ops.solve(a, b)", ["singular", np.array([[1.0], [2.0]], np.float32)]),
    "lstsq@rank_deficient": ("ops.lstsq(a, b)", ["singular", np.array([1.0, 2.0], np.float32)]),
    "pinv@singular": ("ops.pinv(a)", ["singular"]),
    "matrix_rank@singular": ("ops.matrix_rank(a)", ["singular"]),
    "qr@empty": ("ops.qr(a)[1]", [np.zeros((3, 0), np.float32)]),
    "psnr@identical": ("ops.psnr(a, a, 1.0)", [np.array([0.5, 0.25], np.float32)]),
    "relu@int32": ("ops.relu(a)", ["int32"]),
    "leaky_relu@negative_zero": ("ops.leaky_relu(a)", [np.array([-0.0, -INF], np.float32)]),
    "layer_normalization@constant_row": ("ops.layer_normalization(a, axis=-1)", [np.ones((2, 3), np.float32)]),
    "rms_normalization@zeros": ("ops.rms_normalization(a, axis=-1)", [np.zeros((2, 3), np.float32)]),
    "batch_normalization@zero_variance": (
        "ops.batch_normalization(a, b, c, axis=-1)",
        ["block", np.zeros(4, np.float32), np.zeros(4, np.float32)],
    ),
    "std@single_element": ("ops.std(a)", [np.array([3.0], np.float32)]),
    "var@inf": ("ops.var(a)", [np.array([INF, 1.0], np.float32)]),
    "median@even_nan": ("ops.median(a)", [np.array([1.0, NAN, 2.0, 3.0], np.float32)]),
    "unravel_index@negative": ("ops.unravel_index(a, (2, 3))", [np.array([5, 0, 4], np.int32)]),
    "nonzero@specials": ("ops.nonzero(a)", ["specials"]),
    "diff@uint8": ("ops.diff(a)", ["uint8"]),
    "diff@bool": ("ops.diff(a)", ["bool"]),
    "ptp@uint8": ("ops.ptp(a)", ["uint8"]),
    "corrcoef@constant_row": ("ops.corrcoef(a)", [np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]], np.float32)]),
    "hypot@infs": ("ops.hypot(a, b)", [np.array([INF, -INF, NAN], np.float32), np.array([NAN, NAN, INF], np.float32)]),
    "fmax@nan_both": ("ops.fmax(a, b)", [np.array([NAN, NAN, 1.0], np.float32), np.array([NAN, 2.0, NAN], np.float32)]),
    "logaddexp2@infs": ("ops.logaddexp2(a, b)", [np.array([-INF, INF], np.float32), np.array([-INF, INF], np.float32)]),
    "erfinv@bounds": ("ops.erfinv(a)", [np.array([-1.0, 1.0, 1.5, -0.0], np.float32)]),
    "sinc@zero": ("ops.sinc(a)", [np.array([0.0, -0.0, 1e-20], np.float32)]),
    "heaviside@zeros": (
        "ops.heaviside(a, b)",
        [np.array([0.0, -0.0, NAN], np.float32), np.array([0.5, 0.5, 0.5], np.float32)],
    ),
    "sparse_plus@bounds": ("ops.sparse_plus(a)", [np.array([-1.0, 1.0, -INF, INF], np.float32)]),
}


# Constructors, shapes, control flow, convolutions: one edge each (empty, NaN, negative axis, n = 1).
MORE = {
    "append@empty": ("ops.append(a, a, axis=-1)", ["empty"]),
    "array@specials": ("ops.array([float('nan'), -0.0, float('inf')])", []),
    "associative_scan@specials": ("ops.associative_scan(ops.add, a)", ["specials"]),
    "average_pool@nan": ("ops.average_pool(a, 2)", [np.array([[[1.0], [NAN], [-0.0], [2.0]]], np.float32)]),
    "max_pool@nan": ("ops.max_pool(a, 2)", [np.array([[[1.0], [NAN], [-INF], [-0.0]]], np.float32)]),
    "bartlett@one": ("ops.bartlett(1)", []),
    "blackman@one": ("ops.blackman(1)", []),
    "hamming@one": ("ops.hamming(1)", []),
    "hanning@one": ("ops.hanning(1)", []),
    "kaiser@one": ("ops.kaiser(1, 0.0)", []),
    "broadcast_to@empty": ("ops.broadcast_to(a, (2, 0, 3))", ["empty"]),
    "cholesky_inverse@nan": ("ops.cholesky_inverse(a)", [np.array([[1.0, 0.0], [NAN, 2.0]], np.float32)]),
    "cond@specials": ("ops.cond(False, lambda: a, lambda: b)", ["specials", "partners"]),
    "conv@nan": (
        "ops.conv(a, b)",
        [np.array([[[1.0], [NAN], [-0.0], [2.0]]], np.float32), np.ones((2, 1, 1), np.float32)],
    ),
    "conv_transpose@nan": (
        "ops.conv_transpose(a, b, strides=1)",
        [np.array([[[[1.0], [NAN]], [[0.0], [INF]]]], np.float32), np.ones((2, 2, 1, 1), np.float32)],
    ),
    "depthwise_conv@inf": (
        "ops.depthwise_conv(a, b)",
        [np.array([[[1.0], [INF], [-0.0], [2.0]]], np.float32), np.array([[[1.0]], [[-1.0]]], np.float32)],
    ),
    "separable_conv@inf": (
        "ops.separable_conv(a, b, c)",
        [
            np.array([[[1.0], [INF], [-0.0], [2.0]]], np.float32),
            np.ones((2, 1, 1), np.float32),
            np.ones((1, 1, 1), np.float32),
        ],
    ),
    "convert_to_numpy@specials": ("ops.convert_to_numpy(a)", ["specials"]),
    "convert_to_tensor@uint8": ("ops.convert_to_tensor(a)", ["uint8"]),
    "depth_to_space@nan": ("ops.depth_to_space(a, 2)", [np.array([[[[NAN, -0.0, 1.0, INF]]]], np.float32)]),
    "space_to_depth@nan": ("ops.space_to_depth(a, 2)", [np.array([[[[NAN], [-0.0]], [[1.0], [INF]]]], np.float32)]),
    "diag@negative_k": ("ops.diag(a, k=-1)", ["row"]),
    "diagflat@specials": ("ops.diagflat(a)", [np.array([NAN, -0.0], np.float32)]),
    "dot_product_attention@all_masked_bias": (
        "ops.dot_product_attention(a, a, a, bias=b)",
        [np.ones((1, 2, 1, 2), np.float32), np.full((1, 1, 2, 2), -INF, np.float32)],
    ),
    "dsplit@block": ("ops.dsplit(a, 2)", ["block"]),
    "hsplit@block": ("ops.hsplit(a, [1])", ["block"]),
    "vsplit@block": ("ops.vsplit(a, 2)", ["block"]),
    "dstack@specials": ("ops.dstack([a, b])", ["specials", "partners"]),
    "hstack@empty": ("ops.hstack([a, a])", ["empty"]),
    "vstack@specials": ("ops.vstack([a, b])", ["specials", "partners"]),
    "empty@zero": ("ops.shape(ops.empty((0, 2)))", []),
    "empty_like@uint8": ("ops.shape(ops.empty_like(a))", ["uint8"]),
    "extract_sequences@specials": ("ops.extract_sequences(a, 4, 3)", ["specials"]),
    "fliplr@column": ("ops.fliplr(ops.reshape(a, (2, 2)))", ["column"]),
    "flipud@column": ("ops.flipud(a)", ["column"]),
    "fori_loop@no_steps": ("ops.fori_loop(0, 0, lambda i, v: v + 1.0, a)", ["specials"]),
    "full_like@negative_zero": ("ops.full_like(a, -0.0)", ["specials"]),
    "identity@zero": ("ops.identity(0)", []),
    "isin@specials": ("ops.isin(a, b)", ["specials", np.array([NAN, -0.0, INF], np.float32)]),
    "map@empty": ("ops.map(lambda v: v * 2.0, a)", ["empty"]),
    "meshgrid@empty": ("ops.meshgrid(a, b)", ["row", np.zeros((0,), np.float32)]),
    "ones@empty": ("ops.ones((0, 2))", []),
    "zeros@empty": ("ops.zeros((2, 0), dtype='int32')", []),
    "ones_like@bool": ("ops.ones_like(a)", ["bool"]),
    "zeros_like@uint8": ("ops.zeros_like(a)", ["uint8"]),
    "ravel@empty": ("ops.ravel(a)", ["empty"]),
    "scan@specials": ("ops.scan(lambda c, x: (c + x, c * x), 0.0, a)", ["specials"]),
    "scatter@duplicates": ("ops.scatter([[0], [0], [2]], a, (3,))", [np.array([1.0, NAN, -0.0], np.float32)]),
    "scatter_update@nan": ("ops.scatter_update(a, [[0], [2]], b)", ["row", np.array([NAN, -0.0], np.float32)]),
    "slice_update@nan": ("ops.slice_update(a, (1,), b)", ["row", np.array([NAN], np.float32)]),
    "solve_triangular@singular": (
        "ops.solve_triangular(a, b, lower=True)",
        [np.array([[0.0, 0.0], [1.0, 1.0]], np.float32), np.array([[1.0], [1.0]], np.float32)],
    ),
    "stop_gradient@specials": ("ops.stop_gradient(a)", ["specials"]),
    "switch@negative_zero": ("ops.switch(1, [lambda x: x, lambda x: -x], a)", ["specials"]),
    "unstack@negative_axis": ("ops.unstack(a, axis=-1)", ["block"]),
    "vectorized_map@nan": ("ops.vectorized_map(lambda v: ops.sum(v), a)", ["block"]),
    "while_loop@no_steps": ("ops.while_loop(lambda v: ops.all(v > 1e9), lambda v: (v + 1.0,), (a,))", ["specials"]),
    "shape@empty": ("ops.shape(a)", ["empty"]),
    "size@empty": ("ops.size(a)", ["empty"]),
    "ndim@empty": ("ops.ndim(a)", ["empty"]),
    "is_tensor@uint8": ("ops.is_tensor(a)", ["uint8"]),
}
SINGLE.update(MORE)


def _flatten(result):
    if isinstance(result, (list, tuple)):
        return [leaf for item in result for leaf in _flatten(item)]
    return [result]


def _plain(array):
    """Values as JSON-ready lists: floats (NaN and inf kept), complex as [real, imag] pairs."""
    if array.dtype.kind == "c":
        return [[float(v.real), float(v.imag)] for v in array.reshape(-1)]
    if array.dtype == bool:
        return array.reshape(-1).tolist()
    if array.dtype.kind in "iu":
        return [int(v) for v in array.reshape(-1)]
    return [float(v) for v in array.astype(np.float64).reshape(-1)]


def run(tf, ops, name):
    """Outputs (flat values, dtypes, shapes) and input gradients of one case, with ``tf``/``ops`` given."""
    expression, specs = CASES[name]
    arrays = [INPUTS[s] if isinstance(s, str) else s for s in specs]
    tensors = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in arrays]
    scope = {"ops": ops, "np": np}
    scope.update(zip("abcd", tensors))
    float_inputs = [t for t, a in zip(tensors, arrays) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    with tf.GradientTape(persistent=True) as tape:
        for t in float_inputs:
            tape.watch(t)
        result = eval(expression, scope)  # noqa: S307 - the expressions above, never data
    values, dtypes, shapes, total = [], [], [], None
    for out in _flatten(result):
        if isinstance(out, (bool, int, float)):
            values.append([out] if not isinstance(out, float) or math.isfinite(out) else [float(out)])
            dtypes.append("python:" + type(out).__name__)
            shapes.append([])
            continue
        array = np.asarray(ops.convert_to_numpy(out))
        values.append(_plain(array))
        dtypes.append(str(ops.dtype(out)))
        shapes.append(list(array.shape))
        if str(ops.dtype(out)) in ("float16", "float32", "float64"):
            weight = np.cos(0.3 * np.arange(array.size)).reshape(array.shape)
            with tape:
                term = ops.sum(ops.cast(out, "float64") * weight)
            total = term if total is None else total + term
    grads = []
    if total is not None and float_inputs:
        grads = [
            None if g is None else _plain(np.asarray(tf.convert_to_tensor(g)))
            for g in tape.gradient(total, float_inputs)
        ]
    return {"values": values, "dtypes": dtypes, "shapes": shapes, "grads": grads}


CASES = _cases()
