"""The keras.ops cases compared with Keras 3.15 on TF 2.21: shared by the reference script and the tests.

Each case is ``name -> (expression, inputs)``: the expression is evaluated with
``ops`` (Keras's or tapeviz's, passed in) and the inputs bound to a, b, c...;
an input is a spec string ("f2x3": float32 values in [-1.5, 1.5], "p2x3":
positive, "u2x3": in (-0.9, 0.9), "i2x3": int32 in [0, 4], "b2x3": bools,
"spd3": a symmetric positive definite 3x3, "m4x3": a full-rank matrix) or a Python value
passed as it is. ``run`` returns the outputs (flattened, with dtypes) and the
gradient of sum(output * cos(0.3 * arange)) with respect to each float input.
A case named "op:variant" tests ``op``. Nothing here imports TensorFlow or tapeviz.
"""

import numpy as np

CASES = {
    # elementwise arithmetic and promotion
    "add": ("ops.add(a, b)", ["f2x3", "f3"]),
    "add:int_and_python_float": ("ops.add(a, 1.5)", ["i2x3"]),
    "add:int8_and_python_int": ("ops.add(ops.cast(a, 'int8'), 1)", ["i3"]),
    "add:uint8_int8": ("ops.add(ops.cast(a, 'uint8'), ops.cast(b, 'int8'))", ["i3", "i3"]),
    "add:float16_and_int": ("ops.add(ops.cast(a, 'float16'), b)", ["f3", "i3"]),
    "add:int_and_float64_array": ("ops.add(a, np.array([1.5, 2.5, 3.5]))", ["i3"]),
    "subtract": ("ops.subtract(a, b)", ["f2x3", "f2x3"]),
    "multiply": ("ops.multiply(a, b)", ["f2x3", "f1x3"]),
    "divide": ("ops.divide(a, b)", ["f2x3", "p2x3"]),
    "divide:ints": ("ops.divide(a, b + 1)", ["i2x3", "i2x3"]),
    "true_divide": ("ops.true_divide(a, b)", ["f2x3", "p2x3"]),
    "floor_divide": ("ops.floor_divide(a, b + 1)", ["i2x3", "i2x3"]),
    "mod": ("ops.mod(a, 0.7)", ["f2x3"]),
    "fmod": ("ops.fmod(a, 0.7)", ["f2x3"]),
    "power": ("ops.power(a, b)", ["p2x3", "f2x3"]),
    "power:ints": ("ops.power(a, 2)", ["i2x3"]),
    "maximum": ("ops.maximum(a, b)", ["f2x3", "f2x3"]),
    "minimum": ("ops.minimum(a, 0.2)", ["f2x3"]),
    "fmax": ("ops.fmax(a, b)", ["f2x3", "f2x3"]),
    "fmin": ("ops.fmin(a, b)", ["f2x3", "f2x3"]),
    "divide_no_nan": ("ops.divide_no_nan(a, ops.multiply(b, ops.greater(b, 0)))", ["f2x3", "f2x3"]),
    "arctan2": ("ops.arctan2(a, b)", ["f2x3", "f2x3"]),
    "hypot": ("ops.hypot(a, b)", ["f2x3", "f2x3"]),
    "logaddexp": ("ops.logaddexp(a, b)", ["f2x3", "f2x3"]),
    "logaddexp2": ("ops.logaddexp2(a, b)", ["f2x3", "f2x3"]),
    "abs": ("ops.abs(a)", ["f2x3"]),
    "absolute": ("ops.absolute(a)", ["f2x3"]),
    "fabs": ("ops.fabs(a)", ["i2x3"]),
    "negative": ("ops.negative(a)", ["f2x3"]),
    "sign": ("ops.sign(a)", ["f2x3"]),
    "exp": ("ops.exp(a)", ["f2x3"]),
    "exp:int": ("ops.exp(a)", ["i2x3"]),
    "exp2": ("ops.exp2(a)", ["f2x3"]),
    "expm1": ("ops.expm1(a)", ["f2x3"]),
    "log": ("ops.log(a)", ["p2x3"]),
    "log1p": ("ops.log1p(a)", ["p2x3"]),
    "log2": ("ops.log2(a)", ["p2x3"]),
    "log10": ("ops.log10(a)", ["p2x3"]),
    "sqrt": ("ops.sqrt(a)", ["p2x3"]),
    "sqrt:int": ("ops.sqrt(a)", ["i2x3"]),
    "cbrt": ("ops.cbrt(a)", ["f2x3"]),
    "reciprocal": ("ops.reciprocal(a)", ["p2x3"]),
    "square": ("ops.square(a)", ["f2x3"]),
    "square:bool": ("ops.square(a)", ["b2x3"]),
    "sin": ("ops.sin(a)", ["f2x3"]),
    "cos": ("ops.cos(a)", ["f2x3"]),
    "tan": ("ops.tan(a)", ["u2x3"]),
    "arcsin": ("ops.arcsin(a)", ["u2x3"]),
    "arccos": ("ops.arccos(a)", ["u2x3"]),
    "arctan": ("ops.arctan(a)", ["f2x3"]),
    "sinh": ("ops.sinh(a)", ["f2x3"]),
    "cosh": ("ops.cosh(a)", ["f2x3"]),
    "tanh": ("ops.tanh(a)", ["f2x3"]),
    "arcsinh": ("ops.arcsinh(a)", ["f2x3"]),
    "arccosh": ("ops.arccosh(a + 1.5)", ["p2x3"]),
    "arctanh": ("ops.arctanh(a)", ["u2x3"]),
    "deg2rad": ("ops.deg2rad(a)", ["f2x3"]),
    "rad2deg": ("ops.rad2deg(a)", ["f2x3"]),
    "ceil": ("ops.ceil(a)", ["f2x3"]),
    "floor": ("ops.floor(a)", ["f2x3"]),
    "trunc": ("ops.trunc(a)", ["f2x3"]),
    "round": ("ops.round(a)", ["f2x3"]),
    "round:decimals": ("ops.round(a, 1)", ["f2x3"]),
    "sinc": ("ops.sinc(a)", ["f2x3"]),
    "heaviside": ("ops.heaviside(a, 0.5)", ["f2x3"]),
    "clip": ("ops.clip(a, -0.5, 0.7)", ["f2x3"]),
    "clip:int": ("ops.clip(a, 1, 3)", ["i2x3"]),
    "nan_to_num": ("ops.nan_to_num(ops.log(a - 0.5), nan=-1.0)", ["p2x3"]),
    "conj": ("ops.conj(a)", ["f2x3"]),
    "conjugate": ("ops.conjugate(a)", ["f2x3"]),
    "real": ("ops.real(a)", ["f2x3"]),
    "imag": ("ops.imag(a)", ["f2x3"]),
    "angle": ("ops.angle(a)", ["f2x3"]),
    "ldexp": ("ops.ldexp(a, b)", ["f2x3", "i2x3"]),
    # comparisons
    "equal": ("ops.equal(a, b)", ["i2x3", "i2x3"]),
    "not_equal": ("ops.not_equal(a, b)", ["i2x3", "i2x3"]),
    "greater": ("ops.greater(a, b)", ["f2x3", "f2x3"]),
    "greater_equal": ("ops.greater_equal(a, 0.0)", ["f2x3"]),
    "less": ("ops.less(a, b)", ["f2x3", "f2x3"]),
    "less_equal": ("ops.less_equal(a, b)", ["i2x3", "i2x3"]),
    "logical_and": ("ops.logical_and(a, b)", ["b2x3", "b2x3"]),
    "logical_or": ("ops.logical_or(a, b)", ["b2x3", "b2x3"]),
    "logical_xor": ("ops.logical_xor(a, b)", ["b2x3", "b2x3"]),
    "logical_not": ("ops.logical_not(a)", ["i2x3"]),
    "isnan": ("ops.isnan(ops.log(a))", ["f2x3"]),
    "isinf": ("ops.isinf(ops.log(a * 0.0))", ["f2x3"]),
    "isfinite": ("ops.isfinite(ops.log(a))", ["f2x3"]),
    "isposinf": ("ops.isposinf(1.0 / (a * 0.0))", ["f2x3"]),
    "isneginf": ("ops.isneginf(1.0 / (a * 0.0))", ["f2x3"]),
    "isreal": ("ops.isreal(a)", ["f2x3"]),
    "signbit": ("ops.signbit(a)", ["f2x3"]),
    "isclose": ("ops.isclose(a, ops.add(a, 1e-6 * b))", ["f2x3", "f2x3"]),
    "allclose": ("ops.allclose(a, a + 1e-3)", ["f2x3"]),
    "isin": ("ops.isin(a, b)", ["i2x3", "i3"]),
    # reductions
    "sum": ("ops.sum(a, axis=1)", ["f2x3"]),
    "sum:int8": ("ops.sum(ops.cast(a, 'int8'))", ["i2x3"]),
    "sum:bool_keepdims": ("ops.sum(a, axis=0, keepdims=True)", ["b2x3"]),
    "prod": ("ops.prod(a, axis=0)", ["f2x3"]),
    "mean": ("ops.mean(a, axis=(0, 1))", ["f2x3x2"]),
    "mean:int": ("ops.mean(a)", ["i2x3"]),
    "max": ("ops.max(a, axis=-1)", ["f2x3"]),
    "max:initial": ("ops.max(a, initial=1.0)", ["f2x3"]),
    "min": ("ops.min(a, axis=0, keepdims=True)", ["f2x3"]),
    "amax": ("ops.amax(a)", ["f2x3"]),
    "amin": ("ops.amin(a, axis=1)", ["f2x3"]),
    "var": ("ops.var(a, axis=1)", ["f2x3"]),
    "std": ("ops.std(a)", ["f2x3"]),
    "all": ("ops.all(a, axis=1)", ["b2x3"]),
    "any": ("ops.any(a)", ["i2x3"]),
    "ptp": ("ops.ptp(a, axis=1)", ["f2x3"]),
    "count_nonzero": ("ops.count_nonzero(a, axis=0)", ["i2x3"]),
    "average": ("ops.average(a, axis=1, weights=b)", ["f2x3", "p3"]),
    "argmax": ("ops.argmax(a, axis=1)", ["f2x3"]),
    "argmax:flat": ("ops.argmax(a)", ["f2x3"]),
    "argmin": ("ops.argmin(a, axis=0, keepdims=True)", ["f2x3"]),
    "nansum": ("ops.nansum(ops.log(a), axis=1)", ["f2x3"]),
    "nanprod": ("ops.nanprod(ops.log(a + 1.5))", ["f2x3"]),
    "nanmax": ("ops.nanmax(ops.log(a))", ["f2x3"]),
    "nanmin": ("ops.nanmin(ops.log(a), axis=1)", ["f2x3"]),
    "nanmean": ("ops.nanmean(ops.log(a), axis=1)", ["f2x3"]),
    "nanvar": ("ops.nanvar(ops.log(a))", ["f2x3"]),
    "nanstd": ("ops.nanstd(ops.log(a))", ["f2x3"]),
    "logsumexp": ("ops.logsumexp(a, axis=1)", ["f2x3"]),
    # cumulative, sorting, order statistics
    "cumsum": ("ops.cumsum(a, axis=1)", ["f2x3"]),
    "cumsum:flat_bool": ("ops.cumsum(a)", ["b2x3"]),
    "cumprod": ("ops.cumprod(a, axis=0)", ["f2x3"]),
    "sort": ("ops.sort(a)", ["f2x3"]),
    "argsort": ("ops.argsort(a, axis=0)", ["f3x2"]),
    "argpartition": ("ops.sort(ops.argpartition(a, 1)[:2])", [np.array([4, 1, 3, 0, 2], np.int32)]),
    "quantile": ("ops.quantile(a, 0.3, axis=1)", ["f2x5"]),
    "quantile:list": ("ops.quantile(a, [0.25, 0.5], axis=0, method='nearest')", ["f5x2"]),
    "percentile": ("ops.percentile(a, 40.0)", ["f2x5"]),
    "median": ("ops.median(a, axis=1)", ["f2x4"]),
    "searchsorted": ("ops.searchsorted(ops.sort(a), b)", ["f5", "f3"]),
    "digitize": ("ops.digitize(a, [-1.0, 0.0, 1.0])", ["f2x3"]),
    "bincount": ("ops.bincount(a)", ["i6"]),
    "bincount:weights": ("ops.bincount(a, weights=np.array([0.5, 1, 2, 3, 4, 5], np.float32), minlength=6)", ["i6"]),
    "unique": ("ops.unique(a)", ["i6"]),
    "nonzero": ("ops.nonzero(a)", ["i2x3"]),
    "diff": ("ops.diff(a, n=2, axis=1)", ["f2x5"]),
    "trapezoid": ("ops.trapezoid(a, dx=0.5)", ["f2x5"]),
    "trapezoid:x": ("ops.trapezoid(a, b)", ["f5", "f5"]),
    # shape and layout
    "reshape": ("ops.reshape(a, (3, -1))", ["f2x3"]),
    "transpose": ("ops.transpose(a, (2, 0, 1))", ["f2x3x2"]),
    "transpose:default": ("ops.transpose(a)", ["f2x3"]),
    "expand_dims": ("ops.expand_dims(a, (0, -1))", ["f2x3"]),
    "squeeze": ("ops.squeeze(a, axis=1)", ["f2x1x3"]),
    "ravel": ("ops.ravel(a)", ["f2x3"]),
    "broadcast_to": ("ops.broadcast_to(a, (2, 2, 3))", ["f3"]),
    "concatenate": ("ops.concatenate([a, b], axis=1)", ["f2x3", "f2x1"]),
    "concatenate:promote": ("ops.concatenate([a, b])", ["f2x3", "i1x3"]),
    "append": ("ops.append(a, b)", ["f2x3", "f2"]),
    "stack": ("ops.stack([a, b], axis=1)", ["f2x3", "f2x3"]),
    "hstack": ("ops.hstack([a, b])", ["f2x3", "f2x1"]),
    "vstack": ("ops.vstack([a, b])", ["f1x3", "f2x3"]),
    "dstack": ("ops.dstack([a, b])", ["f2x3", "f2x3"]),
    "split": ("ops.split(a, 3, axis=1)", ["f2x6"]),
    "split:indices": ("ops.split(a, [1, 4], axis=1)", ["f2x6"]),
    "array_split": ("ops.array_split(a, 4, axis=1)", ["f2x6"]),
    "hsplit": ("ops.hsplit(a, 2)", ["f2x6"]),
    "vsplit": ("ops.vsplit(a, 2)", ["f4x3"]),
    "dsplit": ("ops.dsplit(a, 2)", ["f2x2x4"]),
    "tile": ("ops.tile(a, (2, 1))", ["f2x3"]),
    "tile:more_reps": ("ops.tile(a, (2, 1, 2))", ["f3"]),
    "repeat": ("ops.repeat(a, 2, axis=1)", ["f2x3"]),
    "repeat:flat": ("ops.repeat(a, 2)", ["f2x3"]),
    "pad": ("ops.pad(a, ((1, 0), (0, 2)))", ["f2x3"]),
    "pad:reflect": ("ops.pad(a, ((1, 1), (2, 1)), mode='reflect')", ["f3x3"]),
    "pad:symmetric": ("ops.pad(a, ((1, 2), (0, 3)), mode='symmetric')", ["f3x3"]),
    "pad:constant_values": ("ops.pad(a, ((1, 1), (1, 1)), constant_values=2.0)", ["f2x3"]),
    "flip": ("ops.flip(a, axis=1)", ["f2x3"]),
    "flip:all": ("ops.flip(a)", ["f2x3"]),
    "fliplr": ("ops.fliplr(a)", ["f2x3"]),
    "flipud": ("ops.flipud(a)", ["f2x3"]),
    "roll": ("ops.roll(a, 2, axis=1)", ["f2x3"]),
    "roll:flat": ("ops.roll(a, -1)", ["f2x3"]),
    "moveaxis": ("ops.moveaxis(a, 0, -1)", ["f2x3x4"]),
    "swapaxes": ("ops.swapaxes(a, 0, 2)", ["f2x3x4"]),
    "rot90": ("ops.rot90(a)", ["f2x3"]),
    "rot90:k3": ("ops.rot90(a, k=3)", ["f2x3"]),
    "take": ("ops.take(a, [2, 0, -1], axis=1)", ["f2x3"]),
    "take:flat": ("ops.take(a, b)", ["f2x3", "i2x2"]),
    "take_along_axis": ("ops.take_along_axis(a, b, axis=1)", ["f2x5", "i2x3"]),
    "get_item": ("ops.get_item(a, (slice(None), 1))", ["f2x3"]),
    "where": ("ops.where(ops.greater(a, 0), a, b)", ["f2x3", "f2x3"]),
    "where:promote": ("ops.where(ops.greater(a, 0), 1, 2.0)", ["f2x3"]),
    "where:indices": ("ops.where(ops.greater(a, 0))", ["f2x3"]),
    "select": ("ops.select([ops.less(a, -0.5), ops.greater(a, 0.5)], [a, a * 2.0], default=0.0)", ["f2x3"]),
    "slice": ("ops.slice(a, (0, 1), (2, 2))", ["f2x3"]),
    "slice_update": ("ops.slice_update(a, (1, 1), b)", ["i3x3", "i1x2"]),
    "scatter": ("ops.scatter([[0, 1], [1, 2], [0, 1]], a, (2, 3))", ["f3"]),
    "scatter_update": ("ops.scatter_update(a, [[0, 1], [1, 2]], b)", ["f2x3", "f2"]),
    "unstack": ("ops.unstack(a, axis=1)", ["f2x3"]),
    # creation
    "zeros": ("ops.zeros((2, 3))", []),
    "ones": ("ops.ones(3, dtype='int32')", []),
    "empty": ("ops.shape(ops.empty((2, 1)))", []),
    "full": ("ops.full((2, 2), 3)", []),
    "zeros_like": ("ops.zeros_like(a)", ["i2x3"]),
    "ones_like": ("ops.ones_like(a, dtype='float32')", ["i2x3"]),
    "empty_like": ("ops.shape(ops.empty_like(a))", ["i2x3"]),
    "full_like": ("ops.full_like(a, 7)", ["f2x3"]),
    "eye": ("ops.eye(3, 4, k=1)", []),
    "identity": ("ops.identity(3, dtype='int32')", []),
    "tri": ("ops.tri(3, 4, k=-1)", []),
    "tril": ("ops.tril(a)", ["f3x3"]),
    "triu": ("ops.triu(a, k=1)", ["f3x4"]),
    "arange": ("ops.arange(5)", []),
    "arange:float": ("ops.arange(1, 2.0, 0.25)", []),
    "linspace": ("ops.linspace(0.0, 1.0, 5)", []),
    "linspace:no_endpoint": ("ops.linspace(0, 2, 4, endpoint=False)", []),
    "logspace": ("ops.logspace(0.0, 2.0, 3)", []),
    "geomspace": ("ops.geomspace(1.0, 8.0, 4)", []),
    "meshgrid": ("ops.meshgrid(a, b)", ["f2", "f3"]),
    "meshgrid:ij": ("ops.meshgrid(a, b, indexing='ij')", ["f2", "f3"]),
    "array": ("ops.array([[1, 2], [3, 4]])", []),
    "copy": ("ops.copy(a)", ["f2x3"]),
    "bartlett": ("ops.bartlett(5)", []),
    "blackman": ("ops.blackman(5)", []),
    "hamming": ("ops.hamming(5)", []),
    "hanning": ("ops.hanning(5)", []),
    "kaiser": ("ops.kaiser(5, 2.0)", []),
    "vander": ("ops.vander(a, 3)", ["f4"]),
    # products
    "matmul": ("ops.matmul(a, b)", ["f2x3", "f3x2"]),
    "matmul:vector": ("ops.matmul(a, b)", ["f2x3", "f3"]),
    "matmul:batch_broadcast": ("ops.matmul(a, b)", ["f2x2x3", "f3x2"]),
    "matmul:ints": ("ops.matmul(a, b)", ["i2x3", "i3x2"]),
    "dot": ("ops.dot(a, b)", ["f2x3", "f3x2"]),
    "dot:nd": ("ops.dot(a, b)", ["f2x3", "f2x3x2"]),
    "tensordot": ("ops.tensordot(a, b, axes=1)", ["f2x3", "f3x2"]),
    "tensordot:lists": ("ops.tensordot(a, b, axes=([0, 1], [1, 0]))", ["f2x3", "f3x2"]),
    "einsum": ("ops.einsum('ij,jk->ik', a, b)", ["f2x3", "f3x2"]),
    "outer": ("ops.outer(a, b)", ["f2", "f3"]),
    "inner": ("ops.inner(a, b)", ["f2x3", "f4x3"]),
    "vdot": ("ops.vdot(a, b)", ["f2x3", "f2x3"]),
    "cross": ("ops.cross(a, b)", ["f2x3", "f2x3"]),
    "kron": ("ops.kron(a, b)", ["f2x2", "f2x3"]),
    "trace": ("ops.trace(a)", ["f3x3"]),
    "trace:offset": ("ops.trace(a, offset=1, axis1=1, axis2=2)", ["f2x3x4"]),
    "diagonal": ("ops.diagonal(a)", ["f3x4"]),
    "diagonal:negative_offset": ("ops.diagonal(a, offset=-1)", ["f3x4"]),
    "diag": ("ops.diag(a, k=1)", ["f3"]),
    "diag:matrix": ("ops.diag(a, k=-1)", ["f3x3"]),
    "diagflat": ("ops.diagflat(a)", ["f2x2"]),
    "correlate": ("ops.correlate(a, b)", ["f5", "f3"]),
    "correlate:full": ("ops.correlate(a, b, mode='full')", ["f5", "f3"]),
    "correlate:same": ("ops.correlate(a, b, mode='same')", ["f5", "f3"]),
    # integer functions
    "bitwise_and": ("ops.bitwise_and(a, b)", ["i2x3", "i2x3"]),
    "bitwise_or": ("ops.bitwise_or(a, b)", ["i2x3", "i2x3"]),
    "bitwise_xor": ("ops.bitwise_xor(a, b)", ["i2x3", "i2x3"]),
    "bitwise_invert": ("ops.bitwise_invert(a)", ["i2x3"]),
    "bitwise_not": ("ops.bitwise_not(a)", ["i2x3"]),
    "bitwise_left_shift": ("ops.bitwise_left_shift(a, b)", ["i2x3", "i2x3"]),
    "bitwise_right_shift": ("ops.bitwise_right_shift(a * 8, b)", ["i2x3", "i2x3"]),
    "left_shift": ("ops.left_shift(a, 2)", ["i2x3"]),
    "right_shift": ("ops.right_shift(a, 1)", ["i2x3"]),
    "gcd": ("ops.gcd(a, 6)", ["i2x3"]),
    "lcm": ("ops.lcm(a + 1, 4)", ["i2x3"]),
    "unravel_index": ("ops.unravel_index(a, (2, 3))", ["i4"]),
    "ndim": ("ops.ndim(a)", ["f2x3"]),
    "size": ("ops.size(a)", ["f2x3"]),
    "shape": ("ops.shape(a)", ["f2x3"]),
    # core
    "cast": ("ops.cast(a, 'int32')", ["f2x3"]),
    "saturate_cast": ("ops.saturate_cast(a * 200.0, 'uint8')", ["f2x3"]),
    "convert_to_tensor": ("ops.convert_to_tensor([[1.5, 2.0]])", []),
    "convert_to_tensor:int": ("ops.convert_to_tensor([1, 2])", []),
    "convert_to_numpy": ("ops.convert_to_numpy(a) * 2", ["f2x3"]),
    "is_tensor": ("ops.is_tensor(a)", ["f2x3"]),
    "dtype": ("ops.dtype(a)", ["i2x3"]),
    "stop_gradient": ("ops.stop_gradient(a) * a", ["f2x3"]),
    "cond": ("ops.cond(ops.greater(ops.sum(a), 0.0), lambda: a * 2.0, lambda: a * 3.0)", ["f2x3"]),
    "switch": ("ops.switch(1, [lambda x: x * 2.0, lambda x: ops.sin(x)], a)", ["f2x3"]),
    "while_loop": ("ops.while_loop(lambda x, i: i < 3, lambda x, i: (x * 1.5, i + 1), (a, 0))[0]", ["f2x3"]),
    "fori_loop": ("ops.fori_loop(0, 3, lambda i, x: x * x + 0.1, a)", ["u2x3"]),
    "scan": ("ops.scan(lambda c, x: (c + x, c * x), ops.zeros(3), a)", ["f4x3"]),
    "map": ("ops.map(lambda x: ops.sum(x * x), a)", ["f4x3"]),
    "vectorized_map": ("ops.vectorized_map(lambda x: x * ops.sum(x), a)", ["f4x3"]),
    "associative_scan": ("ops.associative_scan(lambda x, y: x * y, a, axis=1)", ["f2x3"]),
    "custom_gradient": ("clip_grad(a)", ["f2x3"]),
    "erf": ("ops.erf(a)", ["f2x3"]),
    "erfc": ("ops.erfc(a)", ["f2x3"]),
    "rsqrt": ("ops.rsqrt(a)", ["p2x3"]),
    "top_k": ("ops.top_k(a, 2)", ["f2x5"]),
    "in_top_k": ("ops.in_top_k(b, a, 2)", ["f3x5", "i3"]),
    "segment_sum": ("ops.segment_sum(a, np.array([0, 0, 2, 1]), num_segments=3)", ["f4x2"]),
    "segment_max": ("ops.segment_max(a, np.array([0, 1, 1, 1]))", ["f4x2"]),
    "segment_min": ("ops.segment_min(a, np.array([1, 1, 0, 1]))", ["f4x2"]),
    "segment_prod": ("ops.segment_prod(a, np.array([0, 1, 1, 2]), num_segments=4)", ["f4x2"]),
    "extract_sequences": ("ops.extract_sequences(a, 3, 2)", ["f2x7"]),
    "logdet": ("ops.logdet(a)", ["spd3"]),
    # nn
    "relu": ("ops.relu(a)", ["f2x3"]),
    "relu6": ("ops.relu6(a * 5.0)", ["f2x3"]),
    "sigmoid": ("ops.sigmoid(a)", ["f2x3"]),
    "softplus": ("ops.softplus(a)", ["f2x3"]),
    "softsign": ("ops.softsign(a)", ["f2x3"]),
    "silu": ("ops.silu(a)", ["f2x3"]),
    "swish": ("ops.swish(a)", ["f2x3"]),
    "log_sigmoid": ("ops.log_sigmoid(a)", ["f2x3"]),
    "leaky_relu": ("ops.leaky_relu(a, negative_slope=0.1)", ["f2x3"]),
    "hard_sigmoid": ("ops.hard_sigmoid(a * 3.0)", ["f2x3"]),
    "hard_silu": ("ops.hard_silu(a * 3.0)", ["f2x3"]),
    "hard_swish": ("ops.hard_swish(a * 3.0)", ["f2x3"]),
    "elu": ("ops.elu(a, alpha=0.5)", ["f2x3"]),
    "selu": ("ops.selu(a)", ["f2x3"]),
    "celu": ("ops.celu(a, alpha=0.7)", ["f2x3"]),
    "gelu": ("ops.gelu(a)", ["f2x3"]),
    "gelu:exact": ("ops.gelu(a, approximate=False)", ["f2x3"]),
    "glu": ("ops.glu(a)", ["f2x4"]),
    "hard_tanh": ("ops.hard_tanh(a)", ["f2x3"]),
    "hard_shrink": ("ops.hard_shrink(a)", ["f2x3"]),
    "soft_shrink": ("ops.soft_shrink(a, 0.3)", ["f2x3"]),
    "tanh_shrink": ("ops.tanh_shrink(a)", ["f2x3"]),
    "threshold": ("ops.threshold(a, 0.2, -1.0)", ["f2x3"]),
    "squareplus": ("ops.squareplus(a, b=2)", ["f2x3"]),
    "sparse_plus": ("ops.sparse_plus(a)", ["f2x3"]),
    "sparse_sigmoid": ("ops.sparse_sigmoid(a)", ["f2x3"]),
    "softmax": ("ops.softmax(a)", ["f2x3"]),
    "softmax:axes": ("ops.softmax(a, axis=(1, 2))", ["f2x3x2"]),
    "log_softmax": ("ops.log_softmax(a, axis=0)", ["f2x3"]),
    "sparsemax": ("ops.sparsemax(a * 4.0)", ["f2x4"]),
    "one_hot": ("ops.one_hot(a, 5)", ["i2x3"]),
    "one_hot:axis0": ("ops.one_hot(a, 4, axis=0, dtype='int32')", ["i3"]),
    "multi_hot": ("ops.multi_hot(a, 5)", ["i2x3"]),
    "binary_crossentropy": (
        "ops.binary_crossentropy(ops.cast(ops.greater(b, 0.0), 'float32'), ops.sigmoid(a))",
        ["f2x3", "f2x3"],
    ),
    "binary_crossentropy:logits": ("ops.binary_crossentropy(b, a, from_logits=True)", ["f2x3", "u2x3"]),
    "categorical_crossentropy": ("ops.categorical_crossentropy(ops.softmax(b), ops.softmax(a))", ["f2x3", "f2x3"]),
    "categorical_crossentropy:logits": (
        "ops.categorical_crossentropy(ops.softmax(b), a, from_logits=True)",
        ["f2x3", "f2x3"],
    ),
    "sparse_categorical_crossentropy": ("ops.sparse_categorical_crossentropy(b % 3, ops.softmax(a))", ["f2x3", "i2"]),
    "sparse_categorical_crossentropy:logits": (
        "ops.sparse_categorical_crossentropy(b % 3, a, from_logits=True)",
        ["f2x3", "i2"],
    ),
    "psnr": ("ops.psnr(a, b, 2.0)", ["f2x3", "f2x3"]),
    "moments": ("ops.moments(a, axes=[0])", ["f3x2"]),
    "moments:keepdims": ("ops.moments(a, axes=[0, 2], keepdims=True)", ["f2x3x2"]),
    "batch_normalization": (
        "ops.batch_normalization(a, b, ops.square(c) + 0.1, axis=-1, offset=c, scale=b)",
        ["f2x3", "f3", "f3"],
    ),
    "layer_normalization": ("ops.layer_normalization(a, gamma=b, beta=c)", ["f2x3", "f3", "f3"]),
    "rms_normalization": ("ops.rms_normalization(a, scale=b)", ["f2x3", "f3"]),
    "normalize": ("ops.normalize(a)", ["f2x3"]),
    "normalize:l1": ("ops.normalize(a, axis=0, order=1)", ["f2x3"]),
    "conv": ("ops.conv(a, b, strides=1, padding='same')", ["f1x4x4x2", "f3x3x2x3"]),
    "conv:1d_strided": ("ops.conv(a, b, strides=2)", ["f2x7x2", "f3x2x1"]),
    "conv:dilated": ("ops.conv(a, b, padding='same', dilation_rate=2)", ["f1x5x5x1", "f2x2x1x2"]),
    "depthwise_conv": ("ops.depthwise_conv(a, b, padding='same')", ["f1x4x4x2", "f3x3x2x2"]),
    "separable_conv": ("ops.separable_conv(a, b, c)", ["f1x4x4x2", "f2x2x2x1", "f1x1x2x3"]),
    "max_pool": ("ops.max_pool(a, 2)", ["f1x4x4x2"]),
    "max_pool:1d_same": ("ops.max_pool(a, 3, strides=2, padding='same')", ["f2x5x2"]),
    "average_pool": ("ops.average_pool(a, (2, 2), strides=1)", ["f1x3x3x2"]),
    "average_pool:channels_first": ("ops.average_pool(a, 2, data_format='channels_first')", ["f1x2x4x4"]),
    "depth_to_space": ("ops.depth_to_space(a, 2)", ["f1x2x2x8"]),
    "space_to_depth": ("ops.space_to_depth(a, 2)", ["f1x4x4x2"]),
    "dot_product_attention": ("ops.dot_product_attention(a, b, c)", ["f1x3x2x4", "f1x5x2x4", "f1x5x2x4"]),
    "dot_product_attention:causal_bias": (
        "ops.dot_product_attention(a, b, c, bias=d, is_causal=True, scale=0.3)",
        ["f1x3x2x4", "f1x3x2x4", "f1x3x2x4", "f1x2x3x3"],
    ),
    "nanargmax": ("ops.nanargmax(ops.log(a), axis=1)", ["f2x3"]),
    "nanargmin": ("ops.nanargmin(ops.log(a))", ["f2x3"]),
    "nancumsum": ("ops.nancumsum(ops.log(a + 1.0), axis=1)", ["f2x3"]),
    "nancumprod": ("ops.nancumprod(ops.log(a + 1.0), axis=0)", ["f2x3"]),
    "nanquantile": ("ops.nanquantile(ops.log(a), 0.4, axis=1)", ["f2x5"]),
    "nanpercentile": ("ops.nanpercentile(ops.log(a), 60.0)", ["f2x5"]),
    "nanmedian": ("ops.nanmedian(ops.log(a), axis=1)", ["f2x5"]),
    "corrcoef": ("ops.corrcoef(a)", ["f3x5"]),
    "histogram": ("ops.histogram(a, bins=4)", ["f10"]),
    "histogram:range": ("ops.histogram(a, bins=3, range=(-1.0, 1.0))", ["f10"]),
    "nextafter": ("ops.nextafter(a, 0.0)", ["f2x3"]),
    "erfinv": ("ops.erfinv(a)", ["u2x3"]),
    "cdist": ("ops.cdist(a, b)", ["f3x2", "f4x2"]),
    "conv_transpose": ("ops.conv_transpose(a, b, strides=2)", ["f1x3x3x2", "f2x2x3x2"]),
    "conv_transpose:same": ("ops.conv_transpose(a, b, strides=2, padding='same')", ["f1x3x3x2", "f3x3x1x2"]),
    "image.rgb_to_grayscale": ("ops.image.rgb_to_grayscale(a)", ["p1x2x3x3"]),
    "image.rgb_to_grayscale:single_int": ("ops.image.rgb_to_grayscale(a)", ["i2x2x3"]),
    "image.resize": ("ops.image.resize(a, (5, 3))", ["f1x3x4x2"]),
    "image.resize:nearest": ("ops.image.resize(a, (2, 6), interpolation='nearest')", ["f1x3x4x2"]),
    "image.pad_images": ("ops.image.pad_images(a, 1, 2, target_height=5, target_width=7)", ["f1x3x4x2"]),
    "image.pad_images:sides": (
        "ops.image.pad_images(a, top_padding=1, bottom_padding=0, left_padding=0, right_padding=2)",
        ["f3x4x2"],
    ),
    "image.crop_images": ("ops.image.crop_images(a, 1, 1, target_height=2, target_width=2)", ["f1x4x4x2"]),
    "image.crop_images:sides": (
        "ops.image.crop_images(a, top_cropping=1, bottom_cropping=1, left_cropping=0, right_cropping=2)",
        ["f4x5x1"],
    ),
    "image.extract_patches": ("ops.image.extract_patches(a, 2)", ["f1x4x4x2"]),
    "image.extract_patches:strided_same": (
        "ops.image.extract_patches(a, (2, 3), strides=1, padding='same')",
        ["f1x3x4x1"],
    ),
    # linalg
    "cholesky": ("ops.cholesky(a)", ["spd3"]),
    "cholesky:upper": ("ops.cholesky(a, upper=True)", ["spd3"]),
    "cholesky_inverse": ("ops.cholesky_inverse(ops.cholesky(a))", ["spd3"]),
    "det": ("ops.det(a)", ["m3x3"]),
    "inv": ("ops.inv(a)", ["m3x3"]),
    "eigh": ("ops.eigh(a)[0]", ["spd3"]),
    "solve": ("ops.solve(a, b)", ["spd3", "f3x2"]),
    "solve_triangular": ("ops.solve_triangular(ops.cholesky(a), b, lower=True)", ["spd3", "f3x2"]),
    "qr": ("ops.abs(ops.qr(a)[1])", ["m4x3"]),
    "qr:complete": ("ops.abs(ops.qr(a, mode='complete')[1])", ["m4x3"]),
    "svd": ("ops.svd(a, compute_uv=False)", ["m4x3"]),
    "svd:uv": ("ops.abs(ops.svd(a, full_matrices=False)[0])", ["m4x3"]),
    "pinv": ("ops.pinv(a)", ["m4x3"]),
    "lstsq": ("ops.lstsq(a, b)", ["m4x3", "f4"]),
    "matrix_rank": ("ops.matrix_rank(ops.matmul(a, ops.transpose(a)))", ["f4x2"]),
    "norm": ("ops.norm(a)", ["f2x3"]),
    "norm:vector_l1": ("ops.norm(a, ord=1, axis=1)", ["f2x3"]),
    "norm:matrix_inf": ("ops.norm(a, ord=np.inf, axis=(0, 1), keepdims=True)", ["f2x3"]),
    "norm:nuc": ("ops.norm(a, ord='nuc')", ["m3x2"]),
    "slogdet": ("ops.slogdet(a)", ["spd3"]),
}


def input_array(spec, k):
    """The fixed input for one spec string (see the module doc); ``k`` varies it per position."""
    if not isinstance(spec, str):
        return spec
    if spec.startswith("spd"):
        n = int(spec[3:])
        m = np.sin(np.arange(n * n) * 1.3 + k).reshape(n, n)
        return (m @ m.T + n * np.eye(n)).astype(np.float32)
    kind, dims = spec[0], spec[1:]
    shape = tuple(int(d) for d in dims.split("x")) if dims else ()
    n = int(np.prod(shape))
    wave = np.sin(np.arange(n) * 1.7 + k + 0.4).reshape(shape)
    if kind == "m":  # a full-rank matrix: sin of an arithmetic progression has rank 2
        return (np.sin(np.arange(n) ** 2 * 0.7 + k) * 1.5).reshape(shape).astype(np.float32)
    if kind == "f":
        return (wave * 1.5).astype(np.float32)
    if kind == "d":
        return (wave * 1.5).astype(np.float64)
    if kind == "p":
        return (np.abs(wave) * 1.5 + 0.2).astype(np.float32)
    if kind == "u":
        return (wave * 0.9).astype(np.float32)
    if kind == "i":
        return (np.round((wave + 1) * 2)).astype(np.int32)
    if kind == "b":
        return wave > 0
    raise ValueError(f"unknown input spec {spec!r}")


def _flatten(result):
    if isinstance(result, (list, tuple)):
        return [leaf for item in result for leaf in _flatten(item)]
    return [result]


def run(tf, ops, name):
    """Outputs (values, dtypes, shapes) and input gradients of one case, with ``tf``/``ops`` given."""
    expression, specs = CASES[name]
    arrays = [input_array(spec, k) for k, spec in enumerate(specs)]
    tensors = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in arrays]

    @ops.custom_gradient
    def clip_grad(x):
        def grad(upstream):
            return ops.clip(upstream, -0.1, 0.1) * 2.0

        return x * 3.0, grad

    scope = {"ops": ops, "np": np, "clip_grad": clip_grad}
    scope.update(zip("abcd", tensors))
    float_inputs = [t for t, a in zip(tensors, arrays) if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    with tf.GradientTape(persistent=True) as tape:
        for t in float_inputs:
            tape.watch(t)
        result = eval(expression, scope)  # noqa: S307 - the expressions above, never data
    outputs = _flatten(result)
    values, dtypes, shapes, total = [], [], [], None
    for out in outputs:
        if isinstance(out, (int, float, bool, str)):
            values.append(out)
            dtypes.append(type(out).__name__)
            shapes.append(None)
            continue
        array = np.asarray(ops.convert_to_numpy(out))
        values.append(array.astype(np.float64).tolist() if array.dtype != bool else array.tolist())
        dtypes.append(ops.dtype(out) if not isinstance(out, np.ndarray) else "numpy:" + str(array.dtype))
        shapes.append(list(array.shape))
        if not isinstance(out, np.ndarray) and ops.dtype(out) in ("float16", "float32", "float64"):
            weight = np.cos(0.3 * np.arange(array.size)).reshape(array.shape)
            with tape:
                term = ops.sum(ops.cast(out, "float64") * weight)
            total = term if total is None else total + term
    grads = []
    if total is not None and float_inputs:
        grads = [
            None if g is None else np.asarray(g).astype(np.float64).tolist() for g in tape.gradient(total, float_inputs)
        ]
    return {"values": values, "dtypes": dtypes, "shapes": shapes, "grads": grads}
