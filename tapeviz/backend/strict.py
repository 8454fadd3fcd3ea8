"""The checking backend: NumPy behind a wall, to find code that bypasses the backend.

``TAPEVIZ_BACKEND=strict`` computes with NumPy, but every array the backend
hands out is a :class:`StrictArray`, which treats NumPy the way a CuPy array
does, so CPU-only machines find the code paths a GPU would break on:

- ``np.asarray(a)``, ``np.exp(a)`` or any other NumPy function given one
  raises ``TypeError`` (CuPy: "Implicit conversion to a NumPy array is not
  allowed"; CuPy would run the NumPy functions it has a twin for, but code
  that calls them bypasses the backend all the same); host copies go through
  ``tapeviz.backend.to_numpy``;
- mixing one with a NumPy array, a list or a tuple in an operator or an
  elementwise function of the namespace raises ``TypeError`` (CuPy:
  "Unsupported type"); Python and NumPy scalars are fine;
- reductions and scalar indexing give 0-d arrays, never NumPy scalars, as
  CuPy does, so code that counts on a host scalar coming back is caught too.

``array-api-strict`` was evaluated first and does not fit: it lets
``np.asarray`` and ``np.exp`` read its arrays (the very leak CuPy refuses),
and tapeviz's kernels are written against NumPy's API, which CuPy mirrors
(``out=``, ``.astype``, ``.copy``, ``.view``, ``.flags``, ``einsum``, ``pad``,
NumPy dtypes), not against the array API standard.
"""

import numbers
import operator
import types

import numpy as np

NAME = "strict"


def _leak(what):
    return TypeError(
        f"{what} was given a backend array: tapeviz code must compute through "
        "tapeviz.backend.xp (NumPy or CuPy) and copy to the host with "
        "tapeviz.backend.to_numpy. (TAPEVIZ_BACKEND=strict checks this; CuPy would "
        "fail here too.)"
    )


def _unsupported(value, where):
    return TypeError(
        f"Unsupported type {type(value)} in {where}: backend arrays do not mix with "
        "NumPy arrays, lists or tuples (CuPy refuses them too). Convert it first "
        "with tapeviz.backend.xp.asarray."
    )


_METADATA = {np.shape, np.ndim, np.size}


class StrictArray:
    """A NumPy array that only the backend namespace may compute with."""

    __slots__ = ("_a", "_owner", "__weakref__")
    __hash__ = None

    def __init__(self, raw, owner=None):
        self._a = raw
        self._owner = owner  # the array this one is a view of, kept alive as CuPy's .base is

    # -- what NumPy must not do with it -----------------------------------------------
    def __array__(self, dtype=None, copy=None):
        raise _leak("np.asarray (or another implicit conversion to NumPy)")

    # NumPy's ufuncs (np.exp(a), np.add.at(a, ...)) refuse it; NumPy's operators
    # (np.float32(2) * a, ndarray + a) hand over to its reflected operator, as with CuPy.
    __array_ufunc__ = None

    def __array_function__(self, func, types_, args, kwargs):
        if func in _METADATA:  # no computation, and CuPy answers these too
            return func(*[_unwrap(a, {}, True) for a in args], **kwargs)
        raise _leak(f"NumPy's np.{func.__name__}")

    # -- metadata -----------------------------------------------------------------------
    @property
    def base(self):
        return self._owner if self._owner is not None else self._a.base

    shape = property(lambda self: self._a.shape)
    ndim = property(lambda self: self._a.ndim)
    dtype = property(lambda self: self._a.dtype)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)

    def __getattr__(self, name):
        # Everything else NumPy's ndarray has (methods, .T, .real): run on the
        # raw array, with arguments unwrapped and results wrapped.
        if name.startswith("__") or name in ("_a", "_owner"):
            raise AttributeError(name)
        value = getattr(self._a, name)
        if callable(value):
            return _wrapped_callable(value, f"ndarray.{name}", self_wrapper=self)
        return _wrap(value, {id(self._a): self})

    # -- Python protocols (CuPy allows these: they sync and copy a scalar) --------------
    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (self[i] for i in range(len(self._a)))

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __index__(self):
        return operator.index(self._a)

    def __complex__(self):
        return complex(self._a)

    def __format__(self, spec):
        return format(self._a, spec)

    def __repr__(self):
        return "strict_" + repr(self._a)

    def __str__(self):
        return str(self._a)

    def __getitem__(self, key):
        inputs = {id(self._a): self}
        return _wrap(self._a[_unwrap(key, inputs, allow_host=True)], inputs)

    def __setitem__(self, key, value):
        inputs = {}
        self._a[_unwrap(key, inputs, allow_host=True)] = _unwrap(value, inputs, allow_host=True)

    def __reduce__(self):
        return (StrictArray, (self._a,))


def _binary(op, name, reflected=False):
    def method(self, other):
        if isinstance(other, StrictArray):
            other_raw = other._a
        elif isinstance(other, (numbers.Number, np.generic)):
            other_raw = other
        elif isinstance(other, (np.ndarray, list, tuple)):
            raise _unsupported(other, f"the operator {name}")
        else:
            return NotImplemented  # a Tensor: let its reflected operator run
        inputs = {id(self._a): self}
        result = op(other_raw, self._a) if reflected else op(self._a, other_raw)
        return _wrap(result, inputs)

    method.__name__ = name
    return method


for _name in (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "matmul",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
):
    _op = getattr(operator, _name + "_" if _name in ("and", "or") else _name)
    setattr(StrictArray, f"__{_name}__", _binary(_op, f"__{_name}__"))
    setattr(StrictArray, f"__r{_name}__", _binary(_op, f"__r{_name}__", reflected=True))
    setattr(StrictArray, f"__i{_name}__", _binary(getattr(operator, f"i{_name}"), f"__i{_name}__"))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(StrictArray, f"__{_name}__", _binary(getattr(operator, _name), f"__{_name}__"))
for _name in ("neg", "pos", "abs", "invert"):
    setattr(StrictArray, f"__{_name}__", (lambda op: lambda self: _wrap(op(self._a), {}))(getattr(operator, _name)))


# -- crossing the wall ------------------------------------------------------------------


def _unwrap(value, inputs, allow_host, where="", operand=False):
    """``value`` with every StrictArray in it replaced by its raw array.

    ``inputs`` collects raw id -> wrapper, so results that are (views of) an
    input map back to it. Without ``allow_host`` a raw NumPy array anywhere
    in ``value`` is an error, and so is a list or tuple given as an
    elementwise ``operand``.
    """
    if isinstance(value, StrictArray):
        inputs[id(value._a)] = value
        return value._a
    if isinstance(value, np.ndarray):
        if not allow_host:
            raise _unsupported(value, where)
        return value
    if isinstance(value, (list, tuple)):
        if operand:
            raise _unsupported(value, where)
        items = [_unwrap(v, inputs, allow_host, where) for v in value]
        return type(value)(items) if type(value) in (list, tuple) else type(value)(*items)
    return value


def _wrap(result, inputs):
    """Raw NumPy results as StrictArrays: the input itself when NumPy returned
    it (``asarray``, ``out=``), views holding their input alive, scalars as 0-d."""
    if isinstance(result, np.ndarray):
        same = inputs.get(id(result))
        if same is not None and same._a is result:
            return same
        owner = None
        base = result.base
        while base is not None and owner is None:
            owner = inputs.get(id(base))
            base = getattr(base, "base", None)
        return StrictArray(result, owner)
    if isinstance(result, np.generic):
        return StrictArray(np.asarray(result))
    if type(result) in (list, tuple):
        return type(result)(_wrap(r, inputs) for r in result)
    if isinstance(result, tuple) and hasattr(result, "_fields"):  # linalg's SVDResult, QRResult, ...
        return type(result)(*[_wrap(r, inputs) for r in result])
    return result


# Creating an array from host data is a host-to-device copy: allowed, as in CuPy.
_FROM_HOST = {"asarray", "array", "ascontiguousarray", "asanyarray", "frombuffer", "fromiter"}


def _wrapped_callable(fn, qualname, self_wrapper=None, elementwise=False):
    allow_host = qualname.rsplit(".", 1)[-1] in _FROM_HOST

    def call(*args, **kwargs):
        inputs = {} if self_wrapper is None else {id(self_wrapper._a): self_wrapper}
        raw_args = [_unwrap(a, inputs, allow_host, qualname, operand=elementwise) for a in args]
        raw_kwargs = {k: _unwrap(v, inputs, allow_host, qualname) for k, v in kwargs.items()}
        return _wrap(fn(*raw_args, **raw_kwargs), inputs)

    call.__name__ = getattr(fn, "__name__", qualname)
    call.__qualname__ = qualname
    call.__doc__ = getattr(fn, "__doc__", None)
    return call


class _Ufunc:
    """A NumPy ufunc whose call and methods (reduce, outer, ...) go through the wall."""

    def __init__(self, ufunc):
        self._ufunc = ufunc
        self.__name__ = ufunc.__name__
        self._call = _wrapped_callable(ufunc, ufunc.__name__, elementwise=True)

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def __getattr__(self, name):
        value = getattr(self._ufunc, name)
        return _wrapped_callable(value, f"{self.__name__}.{name}") if callable(value) else value


class Namespace(types.ModuleType):
    """NumPy's namespace (or a submodule of it), every function behind the wall."""

    def __init__(self, module, name="strict"):
        super().__init__(name)
        self._module = module

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "ndarray":
            value = StrictArray
        else:
            value = getattr(self._module, name)
            if isinstance(value, types.ModuleType):
                value = Namespace(value, f"{self.__name__}.{name}")
            elif isinstance(value, np.ufunc):
                value = _Ufunc(value)
            elif callable(value) and not isinstance(value, type):
                value = _wrapped_callable(value, name)
        setattr(self, name, value)  # look each name up once
        return value


xp = Namespace(np)


# -- the backend's helpers, for this backend ---------------------------------------------


def to_numpy(array):
    """A host copy of a StrictArray, as CuPy's ``.get()`` makes (host data passes through)."""
    return array._a.copy() if isinstance(array, StrictArray) else np.asarray(array)


def scatter_add(out, indices, updates):
    """``np.add.at`` on the raw arrays: the gap every backend fills its own way."""
    np.add.at(out._a, _unwrap(indices, {}, True), _unwrap(updates, {}, False, "scatter_add"))
    return out


def unwrap(array):
    """The raw array, for backend gaps that call a NumPy-only function (SciPy's erf)."""
    return array._a if isinstance(array, StrictArray) else array
