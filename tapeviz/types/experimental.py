"""``tf.types.experimental.TraceType``: how an argument tells ``tf.function`` when a trace can be reused.

An object whose class defines ``__tf_tracing_type__(context)`` is keyed by
the TraceType it returns instead of by itself (a plain object's key is its
identity, so every new instance traces again): calls whose TraceTypes are
equal (``__eq__`` and ``__hash__``) share one trace, as in TF's function
guide. tapeviz matches traces by that equality; ``is_subtype_of`` and
``most_specific_common_supertype`` are TF's protocol and are not consulted.
"""

import abc

__all__ = ["TraceType"]


class TraceType(abc.ABC):
    """The tracing type of a ``tf.function`` argument; subclass it and return one from ``__tf_tracing_type__``.

    Subclasses implement ``__eq__`` and ``__hash__`` (the trace cache's key) and
    ``placeholder_value`` (the value the trace runs with); ``is_subtype_of`` and
    ``most_specific_common_supertype`` complete TF's protocol.
    """

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """True when a trace made for ``other`` may take an argument of this type.

        Args:
            other: another TraceType.

        Returns:
            bool.
        """

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific TraceType both this and every one of ``others`` are subtypes of, or None.

        Args:
            others: a sequence of TraceTypes.

        Returns:
            A TraceType, or None when there is none.
        """

    def placeholder_value(self, placeholder_context=None):
        """The value a trace for this type runs with (tapeviz traces on the call's own argument).

        Args:
            placeholder_context: TF's placeholder context (tapeviz passes None).

        Returns:
            The value to trace with.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define placeholder_value")

    @abc.abstractmethod
    def __eq__(self, other):
        """True when calls with these two types may share one trace."""

    @abc.abstractmethod
    def __hash__(self):
        """A hash consistent with ``__eq__``: the trace cache looks traces up by it."""
