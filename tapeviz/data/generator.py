"""``Dataset.from_generator``'s elements: each value the generator yields, converted and checked
against the signature (TF's ``InvalidArgumentError`` when it does not fit)."""

from tapeviz.core import nest
from tapeviz.core.errors import InvalidArgumentError
from tapeviz.core.tensor import Tensor, convert_to_tensor
from tapeviz.core.tensor_spec import TensorSpec
from tapeviz.data import strings

__all__ = ["generator_elements"]


def _signature(output_signature, output_types, output_shapes):
    if output_signature is not None:
        return output_signature
    if output_types is None:
        raise TypeError("from_generator needs `output_signature` (or the deprecated `output_types`).")
    if output_shapes is None:
        return nest.map_structure(lambda t: TensorSpec(None, t), output_types)
    flat = [
        TensorSpec(shape, dtype)
        for dtype, shape in zip(nest.flatten(output_types), _shapes(output_types, output_shapes))
    ]
    return nest.pack_sequence_as(output_types, flat)


def _shapes(types, shapes):
    if isinstance(types, (tuple, dict)):
        keys = sorted(types) if isinstance(types, dict) else range(len(types))
        return [s for k in keys for s in _shapes(types[k], shapes[k])]
    return [shapes]


def _shape_text(shape):
    return "(" + ", ".join("None" if n is None else str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _checked(value, spec):
    if getattr(spec.dtype, "name", None) == "string":
        return strings.element(strings.as_string_leaf(value))
    tensor = convert_to_tensor(value.numpy() if isinstance(value, Tensor) else value, dtype=spec.dtype)
    if not spec.is_compatible_with(tensor):
        raise InvalidArgumentError(
            f"TypeError: `generator` yielded an element of shape {_shape_text(tuple(tensor.shape))} where an element "
            f"of shape {_shape_text(tuple(spec.shape))} was expected."
        )
    return tensor


def generator_elements(generator, args, output_signature, output_types, output_shapes):
    """One pass of ``generator(*args)``, each element converted and checked against the signature."""
    signature = _signature(output_signature, output_types, output_shapes)
    specs = nest.flatten(signature)
    for value in generator(*(args or ())):
        if isinstance(signature, (tuple, dict)):
            if isinstance(signature, tuple) and (not isinstance(value, (tuple, list)) or len(value) != len(signature)):
                raise InvalidArgumentError(
                    f"TypeError: `generator` yielded an element that did not match the expected structure. The "
                    f"expected structure was {signature}, but the yielded element was {value!r}."
                )
            leaves = _flatten_like(signature, value)
        else:
            leaves = [value]
        yield nest.pack_sequence_as(signature, [_checked(v, s) for v, s in zip(leaves, specs)])


def _flatten_like(signature, value):
    if isinstance(signature, tuple):
        return [leaf for s, v in zip(signature, value) for leaf in _flatten_like(s, v)]
    if isinstance(signature, dict):
        return [leaf for key in sorted(signature) for leaf in _flatten_like(signature[key], value[key])]
    return [value]
