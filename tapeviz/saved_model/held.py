"""The variables a saved ``tf.Module`` holds, in the order the SavedModel stores them, with their attribute paths.

First ``module.variables`` (TF's walk); then the state of every
``tf.random.Generator`` reachable through attributes, lists and dicts, which
``module.variables`` leaves out (a Generator is not a Module, in TF as here)
but TF's SavedModel saves, as its checkpoints do, under ``<path>/_state_var``:
the loaded functions draw from the saved state.
"""

from tapeviz.core.random_generator import Generator
from tapeviz.core.tensor import Variable
from tapeviz.module import Module

GENERATOR_STATE = "_state_var"  # TF's name for a Generator's state in a checkpoint or SavedModel


def saved_variables(module):
    """``module.variables``, then each Generator's state not among them, as a tuple."""
    variables = list(module.variables)
    known = {id(v) for v in variables}
    for _, variable in variable_paths(module):
        if id(variable) not in known:
            known.add(id(variable))
            variables.append(variable)
    return tuple(variables)


def variable_paths(obj):
    """(path, variable) for every variable reachable through attributes, lists, dicts and Generators."""
    for path, value in reachable(obj):
        if isinstance(value, Variable):
            yield path, value
        elif isinstance(value, Generator):
            yield join(path, GENERATOR_STATE), value.state


def reachable(obj, prefix="", seen=None, skip_tapeviz=False):
    """(path, object) for ``obj`` and each object reachable from it through a Module's attributes (sorted;
    without tapeviz's own ``_tapeviz...`` ones when ``skip_tapeviz``), lists, tuples and dicts, each once."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    yield prefix, obj
    if isinstance(obj, Module):
        for key in sorted(vars(obj)):
            if not (skip_tapeviz and key.startswith("_tapeviz")):
                yield from reachable(vars(obj)[key], join(prefix, key), seen, skip_tapeviz)
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            yield from reachable(item, join(prefix, str(i)), seen, skip_tapeviz)
    elif isinstance(obj, dict):
        for key in sorted(obj, key=str):
            yield from reachable(obj[key], join(prefix, str(key)), seen, skip_tapeviz)


def join(prefix, name):
    """An attribute path: ``prefix/name``, or ``name`` at the root."""
    return f"{prefix}/{name}" if prefix else name
