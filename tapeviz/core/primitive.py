"""Primitive: a named op with one backend kernel. Its gradient rule (core.rules) sits beside its kernel in core.primitives."""

PRIMITIVES = {}  # name -> Primitive, every primitive defined anywhere


def _unregistered(op, needs, *upstream):
    """The rule of a differentiable primitive that has none in the table.

    TF raises this LookupError when a sweep has to pass through a float op
    without a registered gradient (``tf.image.adjust_contrast``'s
    AdjustContrastv2, in the autodiff guide), rather than return None.
    """
    name = op.primitive.name
    raise LookupError(f"gradient registry has no entry for: {name}")


class Primitive:
    """A primitive op: ``kernel(*arrays, **attrs)`` returns an array (or a tuple).

    ``differentiable``: True when gradients flow through it; False when the
    tape records it but no gradient passes (argmax, round: TF returns None);
    None when tapes do not record it at all (shape queries, constants).
    A differentiable primitive without a rule in the table raises TF's
    ``LookupError: gradient registry has no entry for: <name>`` when a
    gradient has to pass through it.
    """

    __slots__ = ("name", "kernel", "n_outputs", "differentiable", "rule")

    def __init__(self, name, kernel, n_outputs=1, differentiable=True):
        if name in PRIMITIVES:
            raise ValueError(f"Primitive {name!r} is defined twice.")
        self.name = name
        self.kernel = kernel
        self.n_outputs = n_outputs  # 1, a fixed count, or None when it varies (split, unstack)
        self.differentiable = differentiable
        # Its gradient function, replaced when core.rules.defgrad registers one.
        self.rule = _unregistered if differentiable else None
        PRIMITIVES[name] = self

    def __repr__(self):
        return f"<Primitive {self.name}>"
