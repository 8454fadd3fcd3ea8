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


def variable_paths(obj, prefix="", seen=None):
    """(path, variable) for every variable reachable through attributes, lists, dicts and Generators."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, Variable):
        yield prefix, obj
    elif isinstance(obj, Generator):
        yield _join(prefix, GENERATOR_STATE), obj.state
    elif isinstance(obj, Module):
        for key in sorted(vars(obj)):
            yield from variable_paths(vars(obj)[key], _join(prefix, key), seen)
    elif isinstance(obj, (list, tuple)):
        for i, item in enumerate(obj):
            yield from variable_paths(item, f"{prefix}/{i}", seen)
    elif isinstance(obj, dict):
        for key in sorted(obj, key=str):
            yield from variable_paths(obj[key], f"{prefix}/{key}", seen)


def _join(prefix, name):
    return f"{prefix}/{name}" if prefix else name
