"""``Model``: a Layer that can also ``summary()`` itself, subclassed or functional.

Training (``compile``/``fit``/``evaluate``/``predict``) comes from ``Trainer``.
"""

import numpy as np

from tapeviz.core import nest, state
from tapeviz.keras.layers.base import KerasTensor, Layer, batchless
from tapeviz.keras.layers.core import InputLayer
from tapeviz.keras.models.functional import adjust_rank, check_names, functional_rows, values_in_input_order
from tapeviz.keras.saving import model_file
from tapeviz.keras.saving import weights as saved_weights
from tapeviz.keras.trainers.trainer import Trainer
from tapeviz.keras.utils import summary_utils
from tapeviz.keras.utils.naming import unique_name


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

    Args:
        *args: for the functional API, ``inputs`` and ``outputs`` (by position or keyword).
        **kwargs: ``inputs``, ``outputs``, ``name``, ``trainable``; a subclass's own arguments.

    Raises:
        ValueError: ``inputs`` without ``outputs``, or ``outputs`` without ``inputs``.

    Example:
        >>> import tapeviz as tf
        >>> inputs = tf.keras.Input(shape=(3,))
        >>> outputs = tf.keras.layers.Dense(2)(inputs)
        >>> model = tf.keras.Model(inputs=inputs, outputs=outputs)
        >>> model(tf.ones([4, 3])).shape
        TensorShape([4, 2])
        >>> len(model.trainable_variables)
        2
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
        """A sub-layer by name or position.

        Args:
            name: the layer's name.
            index: its position (instead of ``name``).

        Returns:
            The layer.

        Raises:
            ValueError: no layer of that name or index.
        """
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")

    def build(self, input_shape):
        """Build every layer by running a zero batch of ``input_shape`` through the model.

        Args:
            input_shape: the input's shape with the batch (None allowed for it).
        """
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

        Args:
            filepath: a path ending in ``.weights.h5``.
            overwrite: replace an existing file.
        """
        saved_weights.check_weights_filename(filepath)
        saved_weights.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False):
        """Read weights saved by ``save_weights`` (tapeviz's or Keras's), or those inside a ``.keras`` file.

        All or nothing: a file that does not fit the model changes no weight.

        Args:
            filepath: a ``.weights.h5`` (or ``.h5``) file, or a ``.keras`` file.
            skip_mismatch: skip weights whose shapes differ instead of failing.

        Returns:
            None (or, for Keras compatibility, what the reader returns).

        Raises:
            ValueError: a file of another format.
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
            positions: where each column ends, as fractions of ``line_length``
                (Keras's defaults: [0.45, 0.80, 1.0], or [0.3, 0.56, 0.74, 1.0]).
            print_fn: called once with the whole text (as Keras 3 does);
                by default the text goes to stdout.
            expand_nested: also list the layers inside nested models.
            show_trainable: add a "Trainable" column (Y, N, or - without weights).
            layer_range: two name patterns; only the rows between them are shown.

        A layer not built yet shows ``?`` and ``0 (unbuilt)``, as in Keras.
        """
        rows, connected = self._summary_rows()
        text = summary_utils.summary_text(
            self,
            rows,
            connected,
            line_length=line_length,
            positions=positions,
            expand_nested=expand_nested,
            show_trainable=show_trainable,
            layer_range=layer_range,
        )
        summary_utils.emit(text, print_fn)

    def _summary_rows(self):
        """``([{"layer", "shape", "connections"}], connected)``: the rows in Keras's order."""
        if self._functional is None:
            return [{"layer": layer, "shape": layer._output_shape} for layer in self.layers], False
        return functional_rows(*self._functional)
