"""``tf.function``: trace on the first call with a new input signature, replay after.

A call's signature is TF's: each tensor argument's dtype and shape, each
Python value itself (a new value traces again), the nesting of lists, tuples
and dicts. ``input_signature`` fixes one signature (``None`` sizes accept any
size); ``reduce_retracing=True`` widens a shape that changed to ``None``.
Tracing runs the Python on the real tensors (core.tracing), so Python side
effects happen while tracing only, as in TF; replays run the recorded
primitives through ``execute``, so tapes record them as in eager code.
"""

import copy
import functools
import inspect
import re

import numpy as np

from tapeviz import backend
from tapeviz.core import autograph_cache, retracing, state, string_array, tracing
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.primitives.math import identity as _identity
from tapeviz.core.tensor import Tensor, Variable, convert_to_tensor
from tapeviz.core.tensor_spec import TensorSpec

_VARIABLE_ERROR = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is "
    "only created once or created outside tf.function. See https://www.tensorflow.org/guide/function"
    "#creating_tfvariables for more information."
)


# Called with each ConcreteFunction an eager call traces or runs (tf.summary.trace_on listens).
CALL_LISTENERS = []


class _Traces:
    """What one function (one per instance, for methods) has traced."""

    # A call finds its trace by dictionary lookups, never by comparing it with every trace (issue 30):
    # its own key, then a key it was matched to before, then only the traces with None sizes whose
    # key differs from its own in sizes alone (_outline), which reduce_retracing keeps few.
    MATCHED_MAX = 4096  # keys remembered as matched to a general trace (forgotten all at once beyond)

    def __init__(self):
        self.concrete = {}  # signature key -> ConcreteFunction, oldest first
        self.alike = {}  # outline -> the keys traced with it
        self.general = {}  # outline -> those of its keys with a None size (calls of other sizes may run them)
        self.matched = {}  # a call's key -> the general trace it runs
        self.count = 0
        self.eager = None  # why it runs eagerly, once a trace could not record it
        self.tracing = set()  # the keys being traced now (a call with one of them recurses forever, as TF)

    def add(self, key, concrete):
        self.concrete[key] = concrete
        outline = _outline(key)
        self.alike.setdefault(outline, []).append(key)
        if _has_none_size(key):
            self.general.setdefault(outline, []).append(key)
        self.count += 1


class Function:
    """What ``tf.function`` returns."""

    def __init__(self, python_function, input_signature=None, options=None, bound_to=None, traces=None):
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self.input_signature = None if input_signature is None else tuple(input_signature)
        self._options = dict(options or {})
        self._reduce_retracing = bool(
            self._options.get("reduce_retracing") or self._options.get("experimental_relax_shapes")
        )
        self._autograph = bool(self._options.get("autograph", True))
        self._bound_to = bound_to
        self._traces = traces if traces is not None else _Traces()
        self._per_instance = {}
        self._parameter_list = self._signature = None

    # -- binding methods ------------------------------------------------------------------
    def __get__(self, instance, owner=None):
        """A method decorated with ``@tf.function``: each instance traces its own functions."""
        if instance is None:
            return self
        store = getattr(instance, "__dict__", None)
        if store is not None:  # kept on the instance: its traces go when it goes (a plain reference cycle)
            traces = store.setdefault("_tapeviz_function_traces", {}).setdefault(id(self), _Traces())
        else:  # an object without a __dict__: the function keeps its traces (and it) alive
            traces = self._per_instance.setdefault(id(instance), _Traces())
        return Function(self.python_function, self.input_signature, self._options, instance, traces)

    # -- calling --------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self._traces.eager is not None or _functions_run_eagerly():
            return self._run_python(args, kwargs)
        if self.input_signature is not None:
            args, kwargs = self._bind(args, kwargs), {}
        call = _Call(self, args, kwargs)
        concrete = self._lookup(call.key)
        if concrete is None:
            count = self._traces.count
            concrete, result = self._trace(call)
            if concrete is not None and not state.local.tracers:  # as TF: eager calls only
                retracing.count_call(self.python_function, traced=self._traces.count != count)
                for listener in CALL_LISTENERS:
                    listener(concrete)
            return result
        if not state.local.tracers:
            retracing.count_call(self.python_function, traced=False)
            for listener in CALL_LISTENERS:
                listener(concrete)
        return concrete._run(call)

    def _run_python(self, args, kwargs):
        if self._bound_to is not None:
            return self.python_function(self._bound_to, *args, **kwargs)
        return self.python_function(*args, **kwargs)

    def _traced_python(self, args, kwargs):
        """The Python a trace runs: AutoGraph's conversion (tensor ifs and loops as tf.cond/tf.while_loop)."""
        python = autograph_cache.converted(self.python_function) if self._autograph else self.python_function
        if self._bound_to is not None:
            return python(self._bound_to, *args, **kwargs)
        return python(*args, **kwargs)

    def _lookup(self, key):
        traces = self._traces
        found = traces.concrete.get(key) or traces.matched.get(key)
        if found is not None:
            return found
        for general in traces.general.get(_outline(key), ()):
            if _fits_key(general, key):
                if len(traces.matched) >= traces.MATCHED_MAX:
                    traces.matched.clear()
                found = traces.matched[key] = traces.concrete[general]
                return found
        return None

    def _general_key(self, call):
        """The key a new trace gets: the signature's, or one widened by reduce_retracing.

        As TF's ``try_generalizing_function_type``: the call's key, widened in turn
        by each earlier trace it differs from in sizes only.
        """
        if self.input_signature is not None:
            return _signature_key(call, self.input_signature)
        key = call.key
        if self._reduce_retracing:
            for other in self._traces.alike.get(_outline(key), ()):
                key = _widen_key(other, key) or key
        return key

    def _trace_open_sizes(self, call):
        """A dry trace of ``call``; if the Python cannot run on its placeholders, again with one open size
        set to a size the error names.

        A spec's open (``None``) sizes are traced as 7. TF traces them as symbolic sizes, which agree
        with whatever an op asks of them: ``x - mean`` with a 30-feature mean, ``tf.reshape(x, [-1, 784])``.
        The error of a trace on 7s names the size that op wanted (30, 784), so each open size in turn is
        set to each size the error names; the first trace that runs is kept. That size is the function's
        own (its variables', its literals'), so the trace may mention it without depending on the call's.
        """
        try:
            return self._trace(call, dry=True)
        except Exception as error:  # noqa: BLE001 - raised as it was unless a retry traces
            for index, axis, size in _sizes_to_try(call, error):
                try:
                    return self._trace(call.with_size(index, axis, size), dry=True, fixed_sizes={size})
                except Exception:  # noqa: BLE001, S112 - that size did not fit either: the next one
                    continue
            raise

    def _trace(self, call, dry=False, fixed_sizes=()):
        key = self._general_key(call)
        if key in self._traces.tracing:
            raise RecursionError(
                f"{self.__name__} calls itself, while being traced, with the same input signature: TF traces it "
                "again and again (maximum recursion depth exceeded). Recurse on Python values, or loop with "
                "tf.while_loop."
            )
        shapes = _display_shapes(key)
        arguments, placeholders = call.for_tracing()
        run = functools.partial(self._traced_python, *arguments)
        self._traces.tracing.add(key)
        try:
            tracer, result = tracing.trace_call(
                run, placeholders, dry=dry, display_shapes=shapes, fixed_sizes=fixed_sizes
            )
        finally:
            self._traces.tracing.discard(key)
        if tracer.untraceable is not None:
            self._traces.eager = tracer.untraceable
            tracing.warn_fallback(self.__name__, tracer.untraceable)
            return None, result
        if tracer.created_variables:
            if self._traces.count:
                raise ValueError(_VARIABLE_ERROR)
            try:  # TF traces twice when the first trace made variables: the second must make none
                check, _ = tracing.trace_call(run, placeholders, dry=True)
            except Exception:  # noqa: BLE001 - a dry run can trip on a skipped step's None: nothing to check
                check = None
            if check is not None and check.created_variables:
                raise ValueError(_VARIABLE_ERROR)
        graph = tracer.finish(result)
        result = tracer.result
        if not dry and not state.local.tracers:  # an eager call: its trace's tensors go out of scope
            result = tracing.close_trace(tracer, self.__name__, result)
        concrete = ConcreteFunction(self, key, call, graph, tracer.shape_specific)
        self._traces.add(key, concrete)
        return concrete, result

    def _bind(self, args, kwargs, specs_allowed=False):
        """The arguments cast to the input_signature; with ``specs_allowed`` (get_concrete_function) a
        TensorSpec that fits its signature's spec stands for it, as TF, which traces the signature's."""
        from tapeviz.core import nest

        specs = self.input_signature
        if len(args) > len(specs) or kwargs:
            raise TypeError(
                f"{self.__name__} has an input_signature of {len(specs)} argument(s): call it with exactly those, "
                f"positionally (got {len(args)} positional and {len(kwargs)} keyword arguments)."
            )

        def cast_leaf(spec, value):
            if specs_allowed and isinstance(value, TensorSpec):
                if not spec.is_compatible_with(value):
                    raise TypeError(f"Can not cast {value!r} to {spec!r}")
                return spec
            return spec.cast(value)

        def cast(spec, value):
            if hasattr(spec, "cast"):
                return cast_leaf(spec, value)
            flat_specs, flat_values = nest.flatten(spec), nest.flatten(value)
            if len(flat_specs) != len(flat_values):
                raise TypeError(f"the argument's structure does not match the signature's {spec!r}")
            return nest.pack_sequence_as(spec, [cast_leaf(s, v) for s, v in zip(flat_specs, flat_values)])

        try:
            return tuple(cast(spec, arg) for spec, arg in zip(specs, args))
        except TypeError as exc:
            signature = ", ".join(f"{name}: {spec!r}" for name, spec in zip(self._argument_names(), specs))
            raise TypeError(
                f"Binding inputs to tf.function failed due to `{exc}`. Received args: {args} and kwargs: {kwargs} "
                f"for signature: ({signature})."
            ) from None

    def _argument_names(self):
        return [p.name for p in self._parameters()]

    def _parameters(self):
        if self._parameter_list is None:  # computed once: every call binds its arguments with it
            parameters = list(inspect.signature(self.python_function).parameters.values())
            self._parameter_list = parameters[1:] if self._bound_to is not None else parameters
            self._signature = inspect.Signature(self._parameter_list)
        return self._parameter_list

    # -- TF's introspection -----------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (tensors or ``tf.TensorSpec``s), tracing it if new.

        A spec with ``None`` sizes is traced on zeros of size 7 (again with a
        size its error names when the Python cannot run on those), with the
        function's assignments and stateful calls (``tf.print``) skipped.
        """
        if self._traces.eager is not None:
            raise ValueError(
                f"tf.function '{self.__name__}' runs eagerly (a trace could not record it), so it has no "
                "ConcreteFunction."
            )
        if self.input_signature is not None:
            if not args and not kwargs:
                args = self.input_signature
            else:
                args, kwargs = self._bind(args, kwargs, specs_allowed=True), {}
        call = _Call(self, args, kwargs)
        if self.input_signature is not None:
            call.key = _signature_key(call, self.input_signature)
        concrete = self._lookup(call.key)
        if concrete is None:
            concrete, _ = self._trace_open_sizes(call)
            if concrete is None:
                raise ValueError(f"tf.function '{self.__name__}' could not be traced; it runs eagerly.")
        return concrete

    @property
    def concrete_functions(self):
        """The ConcreteFunctions traced so far, oldest first (tapeviz's; TF keeps this private)."""
        return list(self._traces.concrete.values())

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Every ConcreteFunction's signature, as TF prints them (blank line between)."""
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in self._traces.concrete.values())

    @property
    def runs_eagerly(self):
        """True once a trace could not record the function (it reads a tensor's value): it runs its Python."""
        return self._traces.eager is not None

    def experimental_get_tracing_count(self):
        """How many ConcreteFunctions this function has traced."""
        return self._traces.count

    def __repr__(self):
        if self._traces.eager is not None:
            return f"<tapeviz.function {self.__name__} (runs eagerly: a trace could not record it)>"
        return f"<tapeviz.function {self.__name__} ({self._traces.count} traced)>"


# -- call signatures -------------------------------------------------------------------------
_KINDS = {
    kind.name: kind
    for kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.VAR_KEYWORD,
    )
}


class _PythonRunner:
    """A ConcreteFunction's way back to its Python (with a method's instance), to trace new sizes."""

    def __init__(self, function):
        self.__name__ = function.__name__
        self._python = (
            autograph_cache.converted(function.python_function) if function._autograph else function.python_function
        )
        self._parameter_list = function._parameters()
        self._signature = function._signature
        self._bound, self._instance = function._bound_to is not None, function._bound_to

    def _parameters(self):
        return self._parameter_list

    def run(self, args, kwargs):
        if self._bound:
            return self._python(self._instance, *args, **kwargs)
        return self._python(*args, **kwargs)


class _Parameters:
    """A loaded ConcreteFunction's parameters, standing in for its Python function when binding a call."""

    def __init__(self, name, names, kinds, defaults):
        self.__name__ = name
        self._list = [inspect.Parameter(n, kinds[n], default=defaults.get(n, inspect.Parameter.empty)) for n in names]

    def _parameters(self):
        return self._list


class _Call:
    """One call's arguments by parameter name, its signature key and its tensor leaves."""

    def __init__(self, function, args, kwargs):
        parameters = function._parameters()
        signature = getattr(function, "_signature", None) or inspect.Signature(parameters)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{function.__name__}() {exc}") from None
        bound.apply_defaults()
        self.names = list(bound.arguments)
        self.kinds = {p.name: p.kind for p in parameters}
        values = {name: _as_tensors(value) for name, value in bound.arguments.items()}
        self.leaves, self.leaf_names = [], []
        self.keepalive = []
        self.key = tuple((name, _describe(values[name], name, self)) for name in self.names)
        examples = iter(self.leaves)
        values = {name: _map(lambda v: next(examples) if _is_leaf(v) else v, value) for name, value in values.items()}
        self.values = values
        bound.arguments.update(values)
        self.args, self.kwargs = bound.args, bound.kwargs
        self._bound = bound

    def with_size(self, index, axis, size):
        """This call with its tensor leaf ``index`` made again as zeros of ``size`` along ``axis``."""
        retry = copy.copy(self)
        leaf = self.leaves[index]
        shape = list(leaf._value.shape)
        shape[axis] = size
        retry.leaves = list(self.leaves)
        retry.leaves[index] = Tensor(backend.xp.zeros(shape, dtype=leaf._value.dtype))
        return retry

    def for_tracing(self):
        """(run, placeholders): the Python call on fresh placeholder tensors, one per tensor argument.

        Each is ``tf.identity`` of the argument, made before the new tracer listens: a
        tensor passed twice gives two placeholders, a tensor the function also
        reads from a closure stays a captured constant, and tapes watching the
        argument still see the first call's ops (through the identity).
        """
        # Made before this trace listens (an enclosing trace records them: its ops feed ours).
        fresh = [leaf if isinstance(leaf, Variable) else _identity(leaf) for leaf in self.leaves]
        replacements = iter(fresh)
        bound = self._bound
        for name in self.names:
            bound.arguments[name] = _map(lambda v: next(replacements) if _is_leaf(v) else v, self.values[name])
        args, kwargs = bound.args, bound.kwargs
        bound.arguments.update(self.values)
        return (args, kwargs), list(zip(fresh, self.leaf_names))


def _as_tensors(value):
    """NumPy arrays and scalars become tensors, as TF converts them."""
    if isinstance(value, (np.ndarray, np.generic)):
        return convert_to_tensor(value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_as_tensors(v) for v in value)
    if isinstance(value, dict):
        return {k: _as_tensors(v) for k, v in value.items()}
    return value


def _is_leaf(value):
    return isinstance(value, (Tensor, Variable, TensorSpec))


def _map(fn, structure):
    from tapeviz.core import nest

    return nest.map_structure(fn, structure)


def _describe(value, name, call):
    if isinstance(value, TensorSpec):  # get_concrete_function(tf.TensorSpec(...)): traced on zeros
        call.leaves.append(_example(value))
        call.leaf_names.append(name)
        return ("T", value.dtype.name, None if value.shape is None else tuple(value.shape))
    if isinstance(value, Tensor):
        call.leaves.append(value)
        call.leaf_names.append(name)
        return ("T", value.dtype.name, tuple(value.shape))
    if isinstance(value, Variable):
        call.leaves.append(value)
        call.leaf_names.append(name)
        return ("V", value.dtype.name, tuple(value.shape))
    if isinstance(value, dict):
        return ("dict", tuple((k, _describe(value[k], f"{name}_{k}", call)) for k in sorted(value)))
    if isinstance(value, (list, tuple)):
        kind = type(value).__name__
        return (kind, tuple(_describe(v, f"{name}_{i}", call) for i, v in enumerate(value)))
    tracing_type = getattr(type(value), "__tf_tracing_type__", None)
    if tracing_type is not None:  # tf.types.experimental.TraceType: calls with equal types share a trace
        return ("L", type(value).__name__, tracing_type(value, None))
    try:
        hash(value)
        return ("L", type(value).__name__, value)
    except TypeError:
        call.keepalive.append(value)
        return ("O", type(value).__name__, id(value))


def _fits(general, key):
    """True when a call with ``key`` may run the trace made for ``general``."""
    if isinstance(general, tuple) and general and general[0] == "T":
        if not (isinstance(key, tuple) and key and key[0] == "T" and key[1] == general[1]):
            return False
        shape, actual = general[2], key[2]
        return shape is None or (len(shape) == len(actual) and all(g is None or g == a for g, a in zip(shape, actual)))
    if isinstance(general, tuple) and isinstance(key, tuple):
        if general and general[0] == "L":
            return general == key and type(general[2]) is type(key[2])
        return len(general) == len(key) and all(_fits(g, k) for g, k in zip(general, key))
    return general == key


def _fits_key(general, key):
    """``_fits`` for two whole call keys ((name, description) pairs: a parameter may be named "T")."""
    return len(general) == len(key) and all(gn == kn and _fits(g, k) for (gn, g), (kn, k) in zip(general, key))


def _widen_key(general, key):
    """``_widen`` for two whole call keys, or None."""
    if len(general) != len(key) or any(gn != kn for (gn, _), (kn, _) in zip(general, key)):
        return None
    parts = [_widen(g, k) for (_, g), (_, k) in zip(general, key)]
    return None if any(p is None for p in parts) else tuple((n, p) for (n, _), p in zip(key, parts))


def _outline(key):
    """A call key with its tensors' shapes left out: a trace can take a call only if their outlines are equal."""
    return tuple((name, _outline_of(desc)) for name, desc in key)


def _outline_of(desc):
    kind = desc[0]
    if kind == "T":
        return ("T", desc[1])
    if kind in ("L", "O", "V"):
        return desc
    if kind == "dict":
        return ("dict", tuple((k, _outline_of(d)) for k, d in desc[1]))
    return (kind, tuple(_outline_of(d) for d in desc[1]))


def _has_none_size(key):
    leaves = [leaf for _, desc in key for leaf in _tensor_keys(desc)]
    return any(leaf[0] == "T" and (leaf[2] is None or None in leaf[2]) for leaf in leaves)


def _widen(general, key):
    """``general`` with the shapes that differ from ``key`` widened, or None when more than shapes differ."""
    if isinstance(general, tuple) and general and general[0] == "T":
        if not (isinstance(key, tuple) and key and key[0] == "T" and key[1] == general[1]):
            return None
        a, b = general[2], key[2]
        if a is None or b is None or len(a) != len(b):
            return ("T", general[1], None)
        return ("T", general[1], tuple(x if x == y else None for x, y in zip(a, b)))
    if isinstance(general, tuple) and isinstance(key, tuple) and len(general) == len(key):
        if general and general[0] in ("L", "O", "V"):
            return general if general == key else None
        parts = [_widen(g, k) for g, k in zip(general, key)]
        return None if any(p is None for p in parts) else tuple(parts)
    return general if general == key else None


def _check_dtypes(name, traced, given):
    """TF's InvalidArgumentError when a tensor argument's dtype is not the traced one (other misfits: TypeError)."""
    expected = [k for _, desc in traced for k in _tensor_keys(desc)]
    got = [k for _, desc in given for k in _tensor_keys(desc)]
    for position, (want, have) in enumerate(zip(expected, got)):
        if want[0] == have[0] == "T" and want[1] != have[1]:
            raise InvalidArgumentError(
                f"cannot compute __inference_{name} as input #{position}(zero-based) was expected to be a "
                f"{_TF_TYPE_NAMES.get(want[1], want[1])} tensor but is a {_TF_TYPE_NAMES.get(have[1], have[1])} "
                f"tensor [Op:__inference_{name}]. Cast it (tf.cast), or call the tf.function itself to trace "
                "a new ConcreteFunction for this dtype.",
                f"__inference_{name}",
            )


_TF_TYPE_NAMES = {"float32": "float", "float64": "double"}  # TF's C++ names in its message


def _tensor_keys(key):
    if isinstance(key, tuple) and key and key[0] in ("T", "V"):
        return [key]
    if isinstance(key, tuple):
        return [leaf for part in key for leaf in _tensor_keys(part)]
    return []


def _display_shapes(key):
    return {i: leaf[2] for i, leaf in enumerate(_tensor_keys(key))}


def _signature_key(call, specs):
    flat_specs = [s for s in _leaves(specs)]
    return _replace_shapes(call.key, iter([s.shape for s in flat_specs]))


def _replace_shapes(key, shapes):
    if isinstance(key, tuple) and key and key[0] == "T":
        shape = next(shapes)
        return ("T", key[1], None if shape is None else tuple(shape))
    if isinstance(key, tuple) and key and key[0] in ("L", "O", "V"):
        return key
    if isinstance(key, tuple):
        return tuple(_replace_shapes(k, shapes) for k in key)
    return key


def _leaves(structure):
    from tapeviz.core import nest

    return nest.flatten(structure)


_OPEN_SIZE = 7  # what a spec's None sizes are traced as


def _sizes_to_try(call, error, most=4):
    """(leaf, axis, size) for each open size of ``call``'s specs and each size ``error`` names (at most
    ``most`` sizes: those other than 1 and the placeholders' 7, in the order the message names them)."""
    named = []
    for number in re.findall(r"\d+", str(error)):
        size = int(number)
        if size not in (0, 1, _OPEN_SIZE) and size not in named and size <= 1 << 20:
            named.append(size)
    open_axes = [
        (index, axis)
        for index, leaf in enumerate(_tensor_keys(call.key))
        if leaf[0] == "T" and leaf[2] is not None and leaf[1] != "string"
        for axis, size in enumerate(leaf[2])
        if size is None
    ]
    return [(index, axis, size) for size in named[:most] for index, axis in open_axes]


def _example(spec):
    """Zeros standing in for a TensorSpec, of size 7 where the spec says None: not 1 (it broadcasts),
    and rarely an axis or a fixed size, so what the trace takes from it can be told apart."""
    shape = () if spec.shape is None else tuple(_OPEN_SIZE if n is None else n for n in spec.shape)
    if spec.dtype.name == "string":  # empty strings stand in for strings
        return Tensor(string_array.empty_strings(shape))
    return Tensor(backend.xp.zeros(shape, dtype=spec.dtype.as_numpy_dtype))


def _functions_run_eagerly():
    from tapeviz import config

    return getattr(config, "functions_run_eagerly", lambda: False)()


# -- ConcreteFunction -------------------------------------------------------------------------
class ConcreteFunction:
    """One trace: its input signature, its graph, and the graphs of other sizes it accepts."""

    def __init__(self, function, key, call, graph, shape_specific):
        self._function = _PythonRunner(function)  # None for one loaded from its dict form
        self._key = key
        self._names = call.names
        self._kinds = call.kinds
        self._defaults = _storable_defaults(function._parameters())
        self._keepalive = call.keepalive
        self._python_values = {n: call.values[n] for n, desc in key if not _tensor_keys(desc)}
        self.graph = graph
        self._graphs = {_shapes(call.leaves): graph}
        self._shape_specific = shape_specific
        self.name = function.__name__

    @property
    def variables(self):
        return list(self.graph.variables.values())

    @property
    def trainable_variables(self):
        return [v for v in self.variables if v.trainable]

    @property
    def flat_input_specs(self):
        """(dtype name, shape) of each placeholder, in call order (None sizes as traced)."""
        return [(leaf[1], leaf[2]) for _, desc in self._key for leaf in _tensor_keys(desc)]

    @property
    def signature_text(self):
        """``x: TensorSpec(...), n: Literal[2]``, as TF's repr writes the inputs."""
        return self._signature_text()

    @property
    def structured_input_signature(self):
        args = tuple(_spec_of(desc) for _, desc in self._key)
        return args, {}

    @property
    def structured_outputs(self):
        """The outputs' structure with a TensorSpec for each tensor (TF gives graph tensors)."""
        specs = self.graph.specs
        return _map(lambda v: None if v is None else TensorSpec(specs[v][1], specs[v][0]), self.graph.outputs)

    def _run(self, call):
        shapes = _shapes(call.leaves)
        graph = self._graphs.get(shapes)
        if graph is None:
            if not self._shape_specific and _same_ranks(shapes, next(iter(self._graphs))):
                graph = self.graph  # ops take axes from ranks: a new rank always needs a new trace
            elif self._function is None:
                raise ValueError(
                    f"ConcreteFunction {self.name} was loaded from a trace that depends on its inputs' sizes or "
                    f"ranks {list(self._graphs)}; it cannot run on shapes {list(shapes)} without its Python "
                    "function. Call it with the traced shapes, or save a trace of these shapes too."
                )
            else:  # the trace baked a size: trace the Python again for these sizes (not a new signature)
                arguments, placeholders = call.for_tracing()
                run = functools.partial(self._function.run, *arguments)
                tracer, result = tracing.trace_call(run, placeholders)
                if tracer.untraceable is None:
                    self._graphs[shapes] = tracer.finish(result)
                    return tracer.result
                return result
        return graph.run(call.leaves)

    def __call__(self, *args, **kwargs):
        """Run this trace; arguments must fit its signature (Python values may be left out)."""
        # As TF: positional arguments are the tensor ones; Python values default to the traced ones.
        tensor_names = [name for name, desc in self._key if _tensor_keys(desc)]
        if len(args) > len(tensor_names):
            raise TypeError(
                f"ConcreteFunction {self.name} takes {len(tensor_names)} tensor argument(s) "
                f"({', '.join(tensor_names)}); got {len(args)} positional arguments."
            )
        given = dict(zip(tensor_names, args))
        given.update(kwargs)
        for name, value in self._python_values.items():
            given.setdefault(name, value)
        descs = dict(self._key)
        given = {name: _coerce(descs.get(name), value) for name, value in given.items()}
        call = _Call(self._signature_holder(), (), given)
        if not _fits_key(self._key, call.key):
            _check_dtypes(self.name, self._key, call.key)
            raise TypeError(
                f"ConcreteFunction {self.name} was traced for ({self._signature_text()}); these arguments do not "
                "fit it. Call the tf.function itself to trace a new ConcreteFunction."
            )
        return self._run(call)

    def _signature_holder(self):
        if self._function is not None:
            return self._function
        return _Parameters(self.name, self._names, self._kinds, self._defaults)

    @property
    def function_signature(self):
        """The tf.function's parameters (``inspect.Signature``, with the defaults a stored trace keeps)."""
        return inspect.Signature(self._signature_holder()._parameters())

    def accepts(self, *args, **kwargs):
        """True when a call of the tf.function with these arguments may run this trace.

        The arguments are bound as the tf.function was called (Python values
        included, defaults filled in); a number where the trace had a tensor is
        converted to its dtype, as TF binds a loaded function's inputs.
        """
        return self._bind_as_function(args, kwargs) is not None

    def call_as_function(self, *args, **kwargs):
        """Run this trace on arguments given as the tf.function was called; TypeError when they do not fit."""
        call = self._bind_as_function(args, kwargs)
        if call is None:
            raise TypeError(
                f"ConcreteFunction {self.name} was traced for ({self._signature_text()}); these arguments do not "
                "fit it."
            )
        return self._run(call)

    def _bind_as_function(self, args, kwargs):
        """The _Call of these arguments when they fit this trace, else None."""
        holder = self._signature_holder()
        try:
            bound = inspect.Signature(holder._parameters()).bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        descs = dict(self._key)
        for name, value in bound.arguments.items():
            try:
                bound.arguments[name] = _coerce(descs.get(name), value)
            except (TypeError, ValueError):  # not convertible to the traced dtype: another trace may take it
                return None
        call = _Call(holder, bound.args, bound.kwargs)
        return call if _fits_key(self._key, call.key) else None

    # -- the dict form (what SavedModel stores) ------------------------------------------------
    def to_dict(self):
        """This trace as plain data (JSON-ready). Captured variables are listed by position:
        ``captured_variables()`` gives them in that order, and ``from_dict`` takes them back."""
        from tapeviz.core import graph_codec

        variables = []
        graph = graph_codec.encode_graph(self.graph, variables)
        self._stored_variables = variables
        return {
            "format": "tapeviz.concrete_function/1",
            "name": self.name,
            "parameters": [[name, self._kinds[name].name] for name in self._names],
            "defaults": [
                [name, graph_codec.encode_value(value, "a default")] for name, value in self._defaults.items()
            ],
            "signature": graph_codec.encode_value(self._key, "the signature"),
            "traced_shapes": graph_codec.encode_value(list(self._graphs)[0], "the traced shapes"),
            "shape_specific": bool(self._shape_specific),
            "graph": graph,
            "variables": [
                {"name": v.name, "shape": list(v.shape), "dtype": v.dtype.name, "trainable": v.trainable}
                for v in variables
            ],
        }

    def captured_variables(self):
        """The variables ``to_dict`` listed, in its order."""
        from tapeviz.core import graph_codec

        variables = []
        graph_codec.encode_graph(self.graph, variables)
        return variables

    @classmethod
    def from_dict(cls, data, variables):
        """The ConcreteFunction stored by ``to_dict``, its captures bound to ``variables`` (in its order)."""
        if not isinstance(data, dict) or data.get("format") != "tapeviz.concrete_function/1":
            raise ValueError("not a stored tapeviz ConcreteFunction (expected format 'tapeviz.concrete_function/1')")
        try:
            return cls._from_dict(data, variables)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError) as exc:
            what = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc!s:.200}"
            raise ValueError(f"the stored ConcreteFunction {data.get('name')!r:.60} is malformed: {what}") from None

    @classmethod
    def _from_dict(cls, data, variables):
        from tapeviz.core import graph_codec
        from tapeviz.core.graph_check import check_graph, check_signature, check_traced_shapes

        if not isinstance(data["variables"], list) or not isinstance(data["parameters"], list):
            raise ValueError("its variables and parameters must be lists")
        if len(variables) != len(data["variables"]):
            raise ValueError(
                f"ConcreteFunction {data['name']} captures {len(data['variables'])} variables; "
                f"{len(variables)} were given."
            )
        for spec, variable in zip(data["variables"], variables):
            if list(variable.shape) != list(spec["shape"]) or variable.dtype.name != spec["dtype"]:
                raise ValueError(
                    f"variable {spec['name']} was stored with shape {spec['shape']} and dtype {spec['dtype']}; "
                    f"the one given has shape {list(variable.shape)} and dtype {variable.dtype.name}."
                )
        concrete = cls.__new__(cls)
        concrete._function = None
        concrete.name = str(data["name"])
        concrete._names = [str(name) for name, _ in data["parameters"]]
        concrete._kinds = {str(name): _KINDS[kind] for name, kind in data["parameters"]}
        concrete._defaults = {str(name): graph_codec.decode_value(value) for name, value in data.get("defaults", [])}
        concrete._key = graph_codec.decode_value(data["signature"])
        concrete._keepalive = []
        inspect.Signature(concrete._signature_holder()._parameters())  # ValueError unless names and kinds are valid
        leaves = check_signature(concrete._key, concrete._names)
        concrete._python_values = {n: _spec_of(d) for n, d in concrete._key if d[0] == "L"}
        concrete.graph = graph_codec.decode_graph(data["graph"], list(variables))
        concrete._graphs = {graph_codec.decode_value(data["traced_shapes"]): concrete.graph}
        concrete._shape_specific = bool(data["shape_specific"])
        check_graph(concrete.graph)
        check_traced_shapes(leaves, len(concrete.graph.inputs), next(iter(concrete._graphs)))
        return concrete

    # -- printing, as TF's ------------------------------------------------------------------
    def _signature_text(self):
        return ", ".join(f"{name}: {_spec_text(desc)}" for name, desc in self._key)

    def _output_text(self):
        return _output_text(self.graph.outputs, self.graph)

    @property
    def function_type(self):
        """TF's FunctionType of this trace: its parameters' specs and its output's, printed as TF prints them."""
        return FunctionType(self._signature_text(), self._output_text())

    @property
    def inference_fn(self):
        """What runs this trace on tensors (TF's AtomicFunction): here the trace itself, called on its tensor arguments."""
        return self

    def pretty_printed_signature(self, verbose=True):
        lines = ["Input Parameters:"]
        for name, desc in self._key:
            lines.append(f"  {name} ({self._kinds[name].name}): {_spec_text(desc)}")
        lines += ["Output Type:", f"  {self._output_text()}", "Captures:"]
        captured = list(self.graph.variables.items())
        if not captured:
            lines.append("  None")
        for _, variable in captured:
            lines.append(f"  {variable.name}: TensorSpec(shape=(), dtype=tf.resource, name=None)")
        return "\n".join(lines)

    def __str__(self):
        return "ConcreteFunction " + self.pretty_printed_signature()

    def __repr__(self):
        return f"<ConcreteFunction ({self._signature_text()}) -> {self._output_text()} at 0x{id(self):X}>"


class FunctionType:
    """A trace's parameters and output, as specs: ``print`` shows ``(a: TensorSpec(...)) -> TensorSpec(...)``.

    Args:
        parameters: the parameters' text (``name: spec``, comma-separated).
        output: the output's spec text.
    """

    def __init__(self, parameters, output):
        self.parameters_text = parameters
        self.output_text = output

    def __str__(self):
        return f"({self.parameters_text}) -> {self.output_text}"

    def __repr__(self):
        return f"FunctionType{self}"


def _storable_defaults(parameters):
    """The parameters' default values that are plain data (numbers, strings, None), as a stored trace keeps them."""
    plain = (bool, int, float, str, type(None))
    return {
        p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty and type(p.default) in plain
    }


def _coerce(desc, value):
    """``value`` converted where the trace had a tensor (a variable is read, a number converted), as TF binds."""
    if desc is None:
        return value
    if desc[0] == "T":
        return value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=desc[1])
    if desc[0] == "dict" and isinstance(value, dict):
        parts = dict(desc[1])
        return {k: _coerce(parts.get(k), v) for k, v in value.items()}
    if desc[0] in ("list", "tuple") and isinstance(value, (list, tuple)) and len(value) == len(desc[1]):
        return type(value)(_coerce(d, v) for d, v in zip(desc[1], value))
    return value


def _same_ranks(shapes, traced):
    return all(len(a) == len(b) for a, b in zip(shapes, traced))


def _shapes(leaves):
    return tuple(tuple(leaf.shape) for leaf in leaves)


def _spec_of(desc):
    if desc[0] in ("T", "V"):
        return TensorSpec(desc[2], desc[1])
    if desc[0] == "L":
        return desc[2]
    if desc[0] == "dict":
        return {k: _spec_of(d) for k, d in desc[1]}
    if desc[0] in ("list", "tuple"):
        parts = [_spec_of(d) for d in desc[1]]
        return parts if desc[0] == "list" else tuple(parts)
    return desc


def _spec_text(desc):
    kind = desc[0]
    if kind == "T":
        return repr(TensorSpec(desc[2], desc[1]))
    if kind == "V":
        return f"TensorSpec(shape={_shape_text(desc[2])}, dtype=tf.resource, name=None)"
    if kind == "L":
        return f"Literal[{desc[2]!r}]"
    if kind == "O":
        return f"<{desc[1]} object>"
    if kind == "dict":
        return "Dict[" + ", ".join(f"[{k!r}, {_spec_text(d)}]" for k, d in desc[1]) + "]"
    parts = ", ".join(_spec_text(d) for d in desc[1])
    return ("List[" if kind == "list" else "Tuple[") + parts + "]"


def _shape_text(shape):
    if shape is None:
        return "<unknown>"
    return "(" + ", ".join("None" if n is None else str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _output_text(outputs, graph):
    if outputs is None:
        return "NoneTensorSpec()"
    if isinstance(outputs, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {_output_text(outputs[k], graph)}]" for k in sorted(outputs)) + "]"
    if isinstance(outputs, (list, tuple)):
        parts = ", ".join(_output_text(o, graph) for o in outputs)
        return ("List[" if isinstance(outputs, list) else "Tuple[") + parts + "]"
    dtype, shape = graph.specs[outputs]
    return repr(TensorSpec(shape, dtype))
