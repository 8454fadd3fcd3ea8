"""The ``tf.function``s of a saved ``tf.Module``: stored as traces, restored as callables without the class.

Saving takes every ``tf.function`` attribute of the object and of the
modules it holds, with the traces its instance has made (a function with an
``input_signature`` and no trace yet is traced for it, as TF does), and
stores each trace as ``ConcreteFunction.to_dict()`` data (a function without parameters is traced
too: TF gives it the input_signature ``()``), its captured
variables named by their saved paths. A trace that holds Python (an
optimizer step, a metric, ``py_function``) cannot be stored: that function
is left out, with a note in the manifest and one warning.

Loading rebuilds each trace with ``ConcreteFunction.from_dict`` on the
restored variables (ops from tapeviz's registry only) and attaches one
``RestoredFunction`` per name, which runs the first trace that accepts the
call, as TF's loaded functions do.
"""

import inspect
import warnings

from tapeviz.core import nest
from tapeviz.core.eager import Function
from tapeviz.core.function import ConcreteFunction
from tapeviz.core.graph_codec import GraphNotStorable
from tapeviz.core.tensor import Tensor, Variable
from tapeviz.core.tensor_spec import TensorSpec
from tapeviz.module import Module
from tapeviz.saved_model import held

DEFAULT_SIGNATURE = "serving_default"


# -- saving ------------------------------------------------------------------------------------
def trace_functions(obj):
    """[(object path, name, [ConcreteFunction], note)] for every tf.function of ``obj`` and its modules.

    Run before the variables are listed: tracing a signed function may create them.
    """
    found = []
    for path, module in _modules(obj):
        for name in function_names(module):
            function = getattr(module, name)
            concretes, note = list(function.concrete_functions), None
            if function.runs_eagerly:
                concretes, note = [], "it runs eagerly (a trace could not record it), so it has no graph to store"
            elif not concretes and (function.input_signature is not None or _takes_nothing(module, name)):
                try:
                    concretes = [function.get_concrete_function()]
                except Exception as exc:  # noqa: BLE001 - saved without it, and said why
                    note = f"it could not be traced for its input_signature: {type(exc).__name__}: {exc}"
            found.append((path, name, concretes, note))
    return found


def _takes_nothing(module, name):
    """True for a tf.function without parameters (``self`` aside): TF gives it the input_signature ``()``,
    so it is traced and saved even if never called."""
    function = getattr(module, name)
    parameters = list(inspect.signature(function.python_function).parameters.values())
    if isinstance(getattr(type(module), name, None), Function):
        parameters = parameters[1:]  # a method: its instance is bound
    return not parameters


def function_names(module):
    """The names of ``module``'s tf.functions: methods of its class and Function attributes of its own."""
    names = {n for n in dir(type(module)) if isinstance(getattr(type(module), n, None), Function)}
    names.update(n for n, v in vars(module).items() if isinstance(v, Function))
    return sorted(names)


def function_signatures(module):
    """``{name: input signature}`` of the tf.functions of ``module``'s class, as the manifest lists them
    (a signature as ``[{"shape", "dtype"}]``, or None when the function has none)."""
    found = {}
    for name in dir(type(module)):
        attribute = getattr(type(module), name, None)
        if isinstance(attribute, Function):
            specs = attribute.input_signature
            found[name] = (
                None
                if specs is None
                else [{"shape": None if s.shape is None else list(s.shape), "dtype": s.dtype.name} for s in specs]
            )
    return found


def encode_functions(traced, variable_paths, custom_gradients=True):
    """The manifest's ``saved_functions`` list; ``variable_paths`` maps id(variable) -> its saved path."""
    entries, skipped = [], []
    for path, name, concretes, note in traced:
        traces = []
        if note is None:
            try:
                traces = [_encode_trace(c, variable_paths, custom_gradients) for c in concretes]
            except GraphNotStorable as exc:
                note = str(exc)
        if note is not None:
            traces = []
            skipped.append(f"{held.join(path, name)} ({note})")
        entries.append({"object": path, "name": name, "traces": traces, "not_saved": note})
    if skipped:
        warnings.warn(
            "tf.saved_model.save left out these tf.functions, which a file cannot hold; the loaded object will "
            "not have them: " + "; ".join(skipped),
            UserWarning,
            stacklevel=3,
        )
    return entries


def encode_signatures(obj, signatures, traced, variable_paths, custom_gradients=True):
    """The manifest's ``signatures``: {key: a stored trace}, as TF picks them (see ``_signature_functions``)."""
    stored = {}
    for key, concrete in _signature_functions(obj, signatures, traced).items():
        try:
            stored[key] = _encode_trace(concrete, variable_paths, custom_gradients)
        except GraphNotStorable as exc:
            if signatures is None:
                continue  # found, not asked for: the function's own note says why it was left out
            raise ValueError(f"The signature {key!r} cannot be saved: {exc}") from None
    return stored


def _signature_functions(obj, signatures, traced):
    """TF's choice: the ``signatures`` given, else the root's one tf.function with an input_signature.

    As TF, that one function is left out when it returns no tensor (a ``mutate(v)`` that only assigns):
    a signature without outputs could not be run.
    """
    if signatures is None:
        signed = [
            concretes[0]
            for path, name, concretes, note in traced
            if path == "" and concretes and getattr(obj, name).input_signature is not None
        ]
        return {DEFAULT_SIGNATURE: signed[0]} if len(signed) == 1 and _returns_tensors(signed[0]) else {}
    if not isinstance(signatures, dict):
        signatures = {DEFAULT_SIGNATURE: signatures}
    chosen = {}
    for key, function in signatures.items():
        if isinstance(function, Function):
            if function.input_signature is None:
                raise ValueError(
                    f"Function {function.__name__} used as the signature {key!r} has no input_signature: pass "
                    "function.get_concrete_function(...) or give it an input_signature."
                )
            function = function.get_concrete_function()
        if not isinstance(function, ConcreteFunction):
            raise ValueError(
                f"Expected a tf.function or a ConcreteFunction for the signature {key!r}, got {function!r}."
            )
        chosen[str(key)] = function
    return chosen


def _returns_tensors(concrete):
    return any(spec is not None for spec in nest.flatten(concrete.structured_outputs))


def _encode_trace(concrete, variable_paths, custom_gradients=True):
    data = concrete.to_dict()
    if not custom_gradients:
        _drop_gradients(data["graph"])
    captures = []
    for variable in concrete.captured_variables():
        path = variable_paths.get(id(variable))
        if path is None:
            raise GraphNotStorable(
                f"it captures the variable {variable.name}, which the saved object does not hold: assign it to an "
                "attribute of the object (as TF requires of a captured variable)"
            )
        captures.append(path)
    data["captures"] = captures
    return data


def _drop_gradients(graph):
    """SaveOptions(experimental_custom_gradients=False): keep each custom gradient's function, not its gradient."""
    for node in graph["nodes"]:
        if node["op"] == "CustomGradient":
            node["attrs"]["gradient"] = None
            _drop_gradients(node["attrs"]["forward"])


def _modules(obj):
    """(path, module) for ``obj`` and every tf.Module reachable through attributes, lists and dicts."""
    return [(path, value) for path, value in held.reachable(obj, skip_tapeviz=True) if isinstance(value, Module)]


# -- loading -----------------------------------------------------------------------------------
def decode_functions(entries, variables_by_path):
    """[(object path, name, RestoredFunction)] from the manifest's list; ValueError when malformed."""
    if not isinstance(entries, list):
        raise ValueError("'saved_functions' must be a list")
    restored = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("traces"), list):
            raise ValueError("each saved function needs a list of 'traces'")
        path, name, note = entry.get("object"), entry.get("name"), entry.get("not_saved")
        if not isinstance(path, str) or not isinstance(name, str) or not name or "/" in name:
            raise ValueError("each saved function needs an object path and a name")
        if note is not None and not isinstance(note, str):
            raise ValueError("a saved function's 'not_saved' note must be text")
        traces = [decode_trace(data, variables_by_path) for data in entry["traces"]]
        restored.append((path, name, RestoredFunction(name, traces, note)))
    return restored


def decode_trace(data, variables_by_path):
    """One stored trace, its captures bound to the restored variables by path."""
    if not isinstance(data, dict) or not isinstance(data.get("captures"), list):
        raise ValueError("each stored trace needs its 'captures'")
    try:
        captured = [variables_by_path[path] for path in data["captures"]]
    except (KeyError, TypeError):
        raise ValueError("a stored trace captures a variable the folder does not hold") from None
    return ConcreteFunction.from_dict(data, captured)


class RestoredFunction:
    """A tf.function loaded without its class: runs the first of its traces that accepts the call."""

    def __init__(self, name, concrete_functions, note=None):
        self.__name__ = name
        self.concrete_functions = list(concrete_functions)
        self._note = note

    def __call__(self, *args, **kwargs):
        for concrete in self.concrete_functions:
            if concrete.accepts(*args, **kwargs):
                return concrete.call_as_function(*args, **kwargs)
        if self._note is not None:
            raise ValueError(
                f"tf.function {self.__name__} was not saved, so it cannot be called after loading: {self._note}"
            )
        raise ValueError(self._no_match(args, kwargs))

    def _no_match(self, args, kwargs):
        """TF's message for a call that fits none of a loaded function's traces."""
        count = len(self.concrete_functions)
        if not count:
            return f"Found zero restored functions for caller function {self.__name__}."
        signature = self.concrete_functions[0].function_signature
        try:  # as TF shows them: bound to the parameters, defaults filled in, tensors named by parameter
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            args = tuple(_named(value, name) for name, value in zip(bound.arguments, bound.args))
            kwargs = bound.kwargs
        except TypeError:
            pass
        lines = ["Could not find matching concrete function to call loaded from the SavedModel. Got:"]
        lines += _arguments_text(args, kwargs)
        lines += ["", f" Expected these arguments to match one of the following {count} option(s):"]
        for i, concrete in enumerate(self.concrete_functions, 1):
            specs, _ = concrete.structured_input_signature
            names = list(concrete.function_signature.parameters)
            specs = tuple(_named_spec(spec, name) for name, spec in zip(names, specs))
            lines += ["", f"Option {i}:"] + _arguments_text(specs, {})
        return "\n".join(lines)

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Every stored trace's signature, as TF prints them (blank line between)."""
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in self.concrete_functions)

    def get_concrete_function(self, *args, **kwargs):
        """The trace that accepts these arguments (tensors or ``tf.TensorSpec``s), or the only one."""
        if not args and not kwargs and len(self.concrete_functions) == 1:
            return self.concrete_functions[0]
        for concrete in self.concrete_functions:
            if _specs_fit(concrete, args, kwargs) or concrete.accepts(*args, **kwargs):
                return concrete
        raise ValueError(self._no_match(args, kwargs))

    def __repr__(self):
        return f"<restored tapeviz.function {self.__name__} ({len(self.concrete_functions)} traces)>"


def _specs_fit(concrete, args, kwargs):
    """True when ``args`` hold TensorSpecs and each is one the trace takes (same dtype, sizes it allows)."""
    try:
        bound = concrete.function_signature.bind(*args, **kwargs)
    except TypeError:
        return False
    bound.apply_defaults()
    given = list(bound.arguments.values())
    if not any(isinstance(v, TensorSpec) for v in given):
        return False
    traced, _ = concrete.structured_input_signature
    for value, spec in zip(given, traced):
        if isinstance(value, TensorSpec):
            if (
                not isinstance(spec, TensorSpec)
                or value.dtype != spec.dtype
                or not _shape_within(value.shape, spec.shape)
            ):
                return False
        elif isinstance(spec, TensorSpec) or value != spec:
            return False
    return len(given) == len(traced)


def _shape_within(shape, allowed):
    if allowed is None:
        return True
    if shape is None or len(shape) != len(allowed):
        return False
    return all(a is None or a == n for n, a in zip(shape, allowed))


class _Named:
    """A call's tensor as TF's message shows it: ``<tf.Tensor 'x:0' shape=(3,) dtype=float32>``."""

    def __init__(self, tensor, name):
        self.text = f"<tf.Tensor '{name}:0' shape={_shape_text(tensor.shape)} dtype={tensor.dtype.name}>"

    def __repr__(self):
        return self.text


def _named(value, name):
    return _Named(value, name) if isinstance(value, (Tensor, Variable)) else value


def _named_spec(spec, name):
    return TensorSpec(spec.shape, spec.dtype, name=name) if isinstance(spec, TensorSpec) else spec


def _shape_text(shape):
    return "(" + ", ".join("None" if n is None else str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _arguments_text(args, kwargs):
    lines = [f"  Positional arguments ({len(args)} total):"]
    lines += [f"    * {arg!r}" for arg in args]
    lines.append(f"  Keyword arguments: {kwargs!r}")
    return lines


class SignatureFunction:
    """``loaded.signatures[key]``: keyword tensors in, a dict of output tensors out (as TF's signatures)."""

    def __init__(self, key, concrete):
        self.name = key
        self.concrete = concrete

    def __call__(self, **kwargs):
        return _by_output_name(self.concrete.call_as_function(**kwargs))

    @property
    def structured_input_signature(self):
        return self.concrete.structured_input_signature

    @property
    def structured_outputs(self):
        """``{name: TensorSpec(..., name=name)}``: the outputs as a call returns them, each spec named by its key (TF)."""
        specs = _by_output_name(self.concrete.structured_outputs)
        return {key: TensorSpec(spec.shape, spec.dtype, name=key) for key, spec in specs.items()}

    def __repr__(self):
        return f"<signature {self.name}: {self.concrete!r}>"


def _by_output_name(outputs):
    """A signature's outputs as a dict: a dict's own keys, else ``output_0``, ``output_1``... (TF's names)."""
    if isinstance(outputs, dict):
        return outputs
    if isinstance(outputs, (list, tuple)):
        return {f"output_{i}": o for i, o in enumerate(outputs)}
    return {"output_0": outputs}
