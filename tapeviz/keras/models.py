"""``Model`` (subclassed or functional) and ``Sequential``.

A Model is a Layer that can also ``summary()`` itself; training
(``compile``/``fit``/``evaluate``/``predict``) comes from ``Trainer``.
"""

import numpy as np

from tapeviz.core import nest, state
from tapeviz.keras import model_summary
from tapeviz.keras.cloning import clone_model  # noqa: F401  (``tf.keras.models.clone_model``: the docs find it here)
from tapeviz.keras.functional_inputs import adjust_rank, check_names, values_in_input_order
from tapeviz.keras.layers.base import KerasTensor, Layer, batchless, probe_output_shape, unique_name
from tapeviz.keras.layers.core import InputLayer
from tapeviz.keras.saving import model_file
from tapeviz.keras.saving import weights as saved_weights
from tapeviz.keras.training import Trainer

__all__ = ["Model", "Sequential"]


def _one_or_list(items):
    return items[0] if len(items) == 1 else items


def _refuse_non_functional_arguments(args, kwargs):
    """Keras 3's errors for ``Model(...)`` arguments that are neither the functional API nor a Layer's keywords."""
    if args:  # e.g. a subclass's `super().__init__(self)`
        raise TypeError(
            f"Layer.__init__() takes 1 positional argument but {len(args) + 1} were given. "
            "keras.Model(inputs, outputs) builds a functional model; a subclass calls "
            "super().__init__() with keyword arguments only (name=..., or none)."
        )
    given = {key: kwargs[key] for key in ("inputs", "outputs") if key in kwargs}
    if given:
        raise ValueError(
            f"Unrecognized keyword arguments passed to Model: {given}. "
            "A functional Model needs both `inputs` and `outputs`."
        )


class Model(Trainer, Layer):
    """A Layer with training methods, as ``tf.keras.Model``.

    Subclass it (define ``__init__`` creating layers, and ``call``), or build
    it from the functional API: ``Model(inputs=tf.keras.Input(...), outputs=...)``.
    Layers and lists of layers assigned to attributes are tracked, so
    ``model.trainable_variables`` lists every weight.
    """

    def __init__(self, *args, **kwargs):
        # Keras 3's test for the functional API: two positional arguments, or `outputs` with one, or both keywords.
        functional = len(args) == 2 or (len(args) == 1 and "outputs" in kwargs) or {"inputs", "outputs"} <= set(kwargs)
        if not functional:
            _refuse_non_functional_arguments(args, kwargs)
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        if functional and type(self) is Model and not kwargs.get("name"):  # Keras 3 builds a `Functional` here
            kwargs["name"] = unique_name("functional")
        Layer.__init__(self, **kwargs)
        self._init_trainer()
        self._functional = None
        if functional:
            if inputs is None or outputs is None:
                raise ValueError("A functional Model needs both `inputs` and `outputs`.")
            self._init_functional(inputs, outputs)

    # -- the functional API ------------------------------------------------------------------
    def _init_functional(self, inputs, outputs):
        order, seen = [], set()

        def visit(node):
            if id(node) in seen:
                return
            seen.add(id(node))
            for parent in node.parents:
                visit(parent)
            order.append(node)

        for out in nest.flatten(outputs):
            if not isinstance(out, KerasTensor):
                raise ValueError(
                    f"Model outputs must come from layers called on tf.keras.Input, got {type(out).__name__}."
                )
            visit(out)
        self._functional = (inputs, outputs, order)
        for node in order:
            if node.layer is not None:
                self._track(node.layer[0])
        self.built = True

    def _run_functional(self, inputs, training):
        model_inputs, model_outputs, order = self._functional
        values = {}
        for symbolic, value in zip(nest.flatten(model_inputs), values_in_input_order(model_inputs, inputs)):
            values[id(symbolic)] = adjust_rank(value, symbolic.shape)
        for node in order:
            if node.layer is None:
                if id(node) not in values:
                    raise ValueError(f"The model was called without a value for its input {node.name!r}.")
                continue
            layer, args, kwargs = node.layer
            args_in = [values[id(p)] for p in node.parents]
            kwargs = {**kwargs, "training": training}
            values[id(node)] = layer(args_in[0] if len(args_in) == 1 else args_in, *args, **kwargs)
        return nest.map_structure(lambda k: values[id(k)], model_outputs)

    def _call_built(self, inputs, first, args, kwargs):
        if self._functional is not None:
            check_names(self._functional[0], inputs)  # before the call, as Keras: the error is not wrapped
        return Layer._call_built(self, inputs, first, args, kwargs)

    # -- a functional model's symbolic ends, by Keras 3's names ------------------------------------
    @property
    def inputs(self):
        """A functional model's Inputs, as a flat list."""
        return nest.flatten(self._functional_part(0, "inputs"))

    @property
    def outputs(self):
        """A functional model's symbolic outputs, as a flat list."""
        return nest.flatten(self._functional_part(1, "outputs"))

    @property
    def input(self):
        """The Inputs as the model was built on them (one KerasTensor, a list or a dict)."""
        if self._functional is None:
            return Layer.input.fget(self)  # a model called in another functional graph, as a layer
        return self._functional[0]

    @property
    def output(self):
        """The outputs as the model was built on them (one KerasTensor, a list or a dict)."""
        if self._functional is None:
            return Layer.output.fget(self)
        return self._functional[1]

    @property
    def output_names(self):
        """The names of the layers that make the outputs, in flat order (a dict's sorted keys), as Keras 3."""
        outputs = self._functional_part(1, "output_names")
        return [node.layer[0].name if node.layer is not None else node.name for node in nest.flatten(outputs)]

    @property
    def input_shape(self):
        """A functional model's input shape: a tuple for one Input, a list of them for several (as Keras 3)."""
        return _one_or_list([tuple(t.shape) for t in self.inputs])

    @property
    def output_shape(self):
        """The output shape: a functional model's from its outputs (a list for several), else the last call's."""
        if self._functional is None:
            return Layer.output_shape.fget(self)
        return _one_or_list([tuple(t.shape) for t in self.outputs])

    def _functional_part(self, index, attribute):
        if self._functional is None:
            raise AttributeError(
                f"{type(self).__name__!r} object has no attribute {attribute!r}: only a functional model "
                "(keras.Model(inputs, outputs)) has it."
            )
        return self._functional[index]

    def call(self, inputs, training=None):
        if self._functional is not None:
            return self._run_functional(inputs, training)
        raise NotImplementedError(
            f"Model {self.name} has no `call` method. Subclass tf.keras.Model and define "
            "`call(self, inputs, training=None)`, or use the functional API / tf.keras.Sequential."
        )

    @property
    def layers(self):
        """The model's direct sub-layers, in the order they were created or added."""
        return [layer for layer in self._layers if not isinstance(layer, InputLayer)]

    def get_layer(self, name=None, index=None):
        """A sub-layer by name or position."""
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")

    def build(self, input_shape):
        """Build every layer by running a zero batch of ``input_shape`` through the model."""
        if self.built and any(True for _ in self.weights):
            return
        shape = tuple(input_shape)
        with state.no_tapes():
            Layer.__call__(
                self, np.zeros((1 if shape[0] is None else shape[0],) + shape[1:], np.float32), training=False
            )
        self.built = True

    def _build_from(self, inputs):
        self.__dict__["_build_input_shape"] = batchless(nest.map_structure(lambda t: tuple(t.shape), inputs))
        self.built = True  # a subclassed model builds through its layers' first calls

    # -- saving --------------------------------------------------------------------------------
    @property
    def _lists_layers_when_saved(self):
        """Keras saves a functional or Sequential model's layers under 'layers/'; a subclassed one's by attribute."""
        return self._functional is not None

    def save_weights(self, filepath, overwrite=True):
        """Write the weights (and the optimizer's state) to ``filepath``, which must end in ``.weights.h5``.

        The file is Keras 3's layout: Keras can load it into the same
        architecture, and ``load_weights`` reads Keras's. Needs h5py. The
        file is replaced only once the new one is complete; with
        ``overwrite=False`` an existing file is kept (``FileExistsError``).
        """
        saved_weights.check_weights_filename(filepath)
        saved_weights.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False):
        """Read weights saved by ``save_weights`` (tapeviz's or Keras's), or those inside a ``.keras`` file.

        All or nothing: a file that does not fit the model changes no weight.
        """
        path = str(filepath)
        if path.endswith(".keras"):
            return model_file.load_weights_from_keras_file(self, path)
        if not path.endswith(".h5"):
            raise ValueError(
                f"File format not supported: filepath={path}. Keras 3 only supports V3 `.keras` files, "
                "`.weights.h5` files, legacy H5 format files (`.h5` extension), or Orbax checkpoints."
            )
        saved_weights.load_weights(self, path)

    def save(self, filepath, overwrite=True, **kwargs):
        """Write the whole model (architecture, weights, compile state) to a ``.keras`` file; see ``load_model``.

        The write is atomic: a temporary file beside ``filepath`` replaces it
        only once complete.

        Args:
            filepath: a path ending in ``.keras``.
            overwrite: replace an existing file (otherwise refuse).
            **kwargs: ``zipped`` and other Keras options.

        Returns:
            None.

        Raises:
            ValueError: a path that does not end in ``.keras``.

        Example:
            >>> import os, tempfile
            >>> import tapeviz as tf
            >>> model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
            >>> model.save(path)
            >>> restored = tf.keras.models.load_model(path)
            >>> [w.shape for w in restored.get_weights()]
            [(2, 1), (1,)]
        """
        model_file.save_model(self, filepath, overwrite=overwrite, **kwargs)

    # -- summary ---------------------------------------------------------------------------
    def summary(
        self,
        line_length=None,
        positions=None,
        print_fn=None,
        expand_nested=False,
        show_trainable=False,
        layer_range=None,
    ):
        """Print Keras 3's table of the layers, their output shapes and parameter counts, then the totals.

        Args:
            line_length: the table's width; by default Keras's (88, or 108
                with the "Connected to" column), narrowed to the terminal.
            positions: not supported (Keras's custom column positions).
            print_fn: called once with the whole text (as Keras 3 does);
                by default the text goes to stdout.
            expand_nested: also list the layers inside nested models.
            show_trainable: add a "Trainable" column (Y, N, or - without weights).
            layer_range: two name patterns; only the rows between them are shown.

        A layer not built yet shows ``?`` and ``0 (unbuilt)``, as in Keras.
        """
        if positions is not None:
            raise NotImplementedError("summary(positions=...) is not supported by tapeviz; use line_length=.")
        rows, connected = self._summary_rows()
        text = model_summary.summary_text(
            self,
            rows,
            connected,
            line_length=line_length,
            expand_nested=expand_nested,
            show_trainable=show_trainable,
            layer_range=layer_range,
        )
        model_summary.emit(text, print_fn)

    def _summary_rows(self):
        """``([{"layer", "shape", "connections"}], connected)``: the rows in Keras's order."""
        if self._functional is None:
            return [{"layer": layer, "shape": layer._output_shape} for layer in self.layers], False
        return _functional_rows(*self._functional)


def _functional_rows(inputs, outputs, order):
    """A functional model's operations ordered as Keras orders them (deepest first, then first seen from the outputs)."""

    def operation(node):
        return node.layer[0] if node.layer is not None else node.input_layer

    first_seen, done = {}, set()

    def visit(node):  # Keras numbers operations as its depth-first walk from the outputs meets them
        if id(node) in done:
            return
        first_seen.setdefault(id(operation(node)), len(first_seen))
        for parent in node.parents:
            visit(parent)
        done.add(id(node))

    for out in nest.flatten(outputs):
        visit(out)
    node_depth, op_depth = {}, {}
    for node in reversed(order):
        depth = max(node_depth.setdefault(id(node), 0), op_depth.get(id(operation(node)), 0))
        op_depth[id(operation(node))] = node_depth[id(node)] = depth
        for parent in node.parents:
            node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    for symbolic in nest.flatten(inputs):  # an input no output uses still gets a row
        if id(operation(symbolic)) not in op_depth:
            op_depth[id(operation(symbolic))], first_seen[id(operation(symbolic))] = 0, -1
            node_depth[id(symbolic)] = 0
            order = [symbolic, *order]

    calls = {}  # operation -> its nodes in this graph, in call order
    for node in order:
        calls.setdefault(id(operation(node)), []).append(node)
    depths = [node_depth[id(node)] for node in order]
    chain = all(depths.count(d) == 1 for d in depths) and all(len(node.parents) <= 1 for node in order)
    chain = chain and all(len(nodes) == 1 for nodes in calls.values())

    def source(node):
        producer = operation(node)
        return f"{producer.name}[{calls[id(producer)].index(node)}][0]"

    rows, placed = [], set()
    for node in sorted(order, key=lambda n: (-op_depth[id(operation(n))], first_seen[id(operation(n))])):
        op = operation(node)
        if id(op) in placed:
            continue
        placed.add(id(op))
        nodes = calls[id(op)]
        connections = ", ".join(source(p) for n in nodes for p in n.parents)
        rows.append({"layer": op, "shape": tuple(nodes[-1].shape), "connections": connections})
    return rows, not chain


class Sequential(Model):
    """A plain stack of layers, each feeding the next, as ``tf.keras.Sequential``.

    Give the input shape (``tf.keras.Input(shape=...)`` first, or
    ``input_shape=`` on the first layer) to build it at once; otherwise it
    builds on its first call.
    """

    def __init__(self, layers=None, name=None, trainable=True):
        super().__init__(name=name, trainable=trainable)
        self._input_shape = None
        for layer in layers or []:
            self.add(layer)

    def add(self, layer):
        """Append a layer (or a ``tf.keras.Input``)."""
        if isinstance(layer, KerasTensor):
            if self._layers:
                raise ValueError("An Input can only be the first layer of a Sequential model.")
            self._input_shape = layer.shape
            layer = layer.input_layer
        elif isinstance(layer, InputLayer):
            self._input_shape = (None,) + layer.shape
        elif not isinstance(layer, Layer):
            raise TypeError(
                f"Only instances of `keras.Layer` can be added to a Sequential model. Received: {layer!r} (of type {type(layer).__name__})"
            )
        if any(layer is existing for existing in self._layers):
            raise ValueError(f"The layer {layer.name} is already in the model.")
        if self._input_shape is None and not self._layers and getattr(layer, "_input_shape_arg", None):
            self._input_shape = (None,) + layer._input_shape_arg
        self._layers.append(layer)
        if self._input_shape is not None:
            self._build_now()

    _lists_layers_when_saved = True

    def pop(self):
        """Remove the last layer."""
        if not self.layers:
            raise TypeError("There are no layers in the model.")
        return self._layers.pop()

    def _build_now(self):
        """Build on a zero batch; unknown sizes (``input_shape=(None, None, 3)``) stay None in ``output_shape``."""
        shape, _ = probe_output_shape(
            lambda probe: Layer.__call__(self, probe, training=False), KerasTensor(tuple(self._input_shape))
        )
        self.__dict__["_output_shape"] = shape

    @property
    def inputs(self):
        """``[KerasTensor]``: the model's symbolic input, as Keras 3 gives it once the input shape is known."""
        return self._symbolic()[0]

    @property
    def outputs(self):
        """``[KerasTensor]``: the last layer's symbolic output."""
        return self._symbolic()[1]

    @property
    def input_shape(self):
        """The input shape with its batch (None), once an Input or a call gave it."""
        if self._input_shape is None:
            raise AttributeError(f"Sequential model '{self.name}' has no defined input shape yet.")
        return tuple(self._input_shape)

    def _symbolic(self):
        if self._input_shape is None:
            raise AttributeError(
                f"Sequential model '{self.name}' has no defined inputs yet: give it an Input (or call it on data) first."
            )
        from tapeviz.keras.layers.core import Input

        x = start = Input(batch_shape=tuple(self._input_shape))
        for layer in self._layers:
            x = layer(x)
        return [start], [x]

    def call(self, inputs, training=None):
        x = inputs if self._input_shape is None else adjust_rank(inputs, self._input_shape)  # as Keras 3's Functional
        for layer in self._layers:
            x = layer(x, training=training)
        return x
