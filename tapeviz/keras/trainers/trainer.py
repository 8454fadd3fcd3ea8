"""compile / fit / evaluate / predict: the high-level alternative to a custom loop.

``fit`` runs exactly the custom training loop of the seeds, one batch at a
time::

    with tf.GradientTape() as tape:
        y_pred = model(x, training=True)
        loss = loss_fn(y, y_pred)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))

``predict`` returns NumPy arrays and records on no tape, so inside a
``GradientTape`` it breaks the gradient path, as in TF.
"""

import time
import warnings

import numpy as np

from tapeviz import backend as B
from tapeviz import random as tf_random
from tapeviz.core import nest, state
from tapeviz.core.tape import GradientTape
from tapeviz.core.tensor import Tensor, is_tensor, to_array
from tapeviz.data import Dataset
from tapeviz.keras import config
from tapeviz.keras import losses as losses_module
from tapeviz.keras import metrics as metrics_module
from tapeviz.keras import optimizers as optimizers_module
from tapeviz.keras.callbacks import CallbackList
from tapeviz.keras.trainers.compile_utils import MultiOutputLoss, output_metrics
from tapeviz.keras.trainers.data_adapters.data_adapter_utils import (
    num_examples,
    pack_x_y_sample_weight,
    take_rows,
    to_host,
    unpack_x_y_sample_weight,
)
from tapeviz.keras.trainers.data_adapters.py_dataset_adapter import PyDataset, py_dataset_batches
from tapeviz.keras.utils.progbar import Progbar, print_message, summary_line


def _verbosity(verbose):
    return 1 if verbose == "auto" else int(verbose)


def _logs(values):
    return {name: float(B.to_numpy(to_array(v))) if is_tensor(v) else float(v) for name, v in values.items()}


def _compiled_metric(identifier):
    """A compiled metric; one given by a string is named by that string in the logs ('mae'), as Keras 3 does."""
    metric = metrics_module.get(identifier)
    if isinstance(identifier, str):
        metric.name = identifier
    return metric


class Trainer:
    """The training half of ``tf.keras.Model`` (mixed into Model)."""

    def _init_trainer(self):
        self.compiled = False
        self.optimizer = None
        self.loss = None
        self.compiled_loss = None
        self.compiled_metrics = []
        self.history = None
        self.stop_training = False

    # -- compile ------------------------------------------------------------------------------
    def compile(
        self,
        optimizer="rmsprop",
        loss=None,
        metrics=None,
        loss_weights=None,
        weighted_metrics=None,
        run_eagerly=None,
        steps_per_execution=None,
        jit_compile=None,
        auto_scale_loss=True,
        **kwargs,
    ):
        """Choose the optimizer, the loss and the metrics that ``fit`` and ``evaluate`` use.

        Args:
            optimizer: an optimizer, or its name (``"adam"``, ``"sgd"``...).
            loss: a loss object, function, or name (``"mse"``,
                ``"sparse_categorical_crossentropy"``...).
            metrics: a list of metrics or their names (``["accuracy"]``).
            loss_weights: weights of the losses of a model with several outputs.
            weighted_metrics: metrics that take ``sample_weight``.
            run_eagerly: accepted for compatibility (tapeviz always runs eagerly).
            steps_per_execution: accepted for compatibility.
            jit_compile: accepted for compatibility.
            auto_scale_loss: under the ``mixed_float16`` policy, wrap the optimizer in a
                ``LossScaleOptimizer`` (as Keras 3).
            **kwargs: other Keras options, accepted for compatibility.

        Returns:
            None.

        Raises:
            ValueError: an optimizer, loss or metric name that Keras does not have.

        Example:
            >>> import numpy as np
            >>> import tapeviz as tf
            >>> tf.keras.utils.set_random_seed(0)
            >>> model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            >>> model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
            >>> x = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], dtype="float32")
            >>> y = x.sum(axis=1, keepdims=True)
            >>> model.compiled
            True
        """
        self._compile_args = {"optimizer": optimizer, "loss": loss, "metrics": metrics}  # what model.save keeps
        self.optimizer = optimizers_module.get(optimizer)
        if auto_scale_loss and self.dtype_policy.name == "mixed_float16":
            if not isinstance(self.optimizer, optimizers_module.LossScaleOptimizer):
                self.optimizer = optimizers_module.LossScaleOptimizer(self.optimizer, name="loss_scale_optimizer")
        self.loss = loss
        names = self._output_names()
        if isinstance(loss, (dict, list, tuple)) and names:
            self.compiled_loss = MultiOutputLoss(loss, loss_weights, names)
        else:
            self.compiled_loss = losses_module.as_loss(loss) if loss is not None else None
        if names and (
            isinstance(metrics, dict)
            or (
                isinstance(metrics, (list, tuple))
                and len(metrics) == len(names)
                and any(isinstance(m, (list, tuple)) for m in metrics)
            )
        ):
            self.compiled_metrics = output_metrics(metrics, names, _compiled_metric)
        else:
            self.compiled_metrics = [_compiled_metric(m) for m in nest.flatten(metrics or [])]
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.compiled = True

    def _assert_compiled(self):
        if not self.compiled:
            raise ValueError(
                "You must call `compile()` before using the model: "
                "model.compile(optimizer='adam', loss='sparse_categorical_crossentropy', metrics=['accuracy'])."
            )

    @property
    def metrics(self):
        """The loss tracker (and each output's, for several outputs) and the compiled metrics."""
        trackers = list(getattr(self.compiled_loss, "trackers", []))
        return ([self._loss_tracker] + trackers if self.compiled else []) + list(self.compiled_metrics)

    def _output_names(self):
        """The names of a functional model's outputs when it has several (dict keys, or the layers' names)."""
        functional = getattr(self, "_functional", None)
        if not functional:
            return None
        outputs = functional[1]
        if isinstance(outputs, dict):
            return list(outputs)
        if isinstance(outputs, (list, tuple)) and len(outputs) > 1:
            return [k.layer[0].name if k.layer is not None else k.name for k in outputs]
        return None

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        """Set every metric's state back to zero (``fit`` does it at each epoch's start)."""
        for metric in self.metrics:
            metric.reset_state()

    # -- one batch ------------------------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
        """The compiled loss plus any losses the layers added (regularization).

        Args:
            x: the inputs (unused by the default; for overrides).
            y: the targets.
            y_pred: the model's predictions.
            sample_weight: a weight per example.

        Returns:
            A scalar Tensor.

        Raises:
            ValueError: a compiled loss but no ``y``, or no loss at all.
        """
        terms = []
        if self.compiled_loss is not None:
            if y is None:
                raise ValueError("The model was compiled with a loss, but the data has no targets `y`.")
            terms.append(self.compiled_loss(y, y_pred, sample_weight))
        terms.extend(self.losses)
        if not terms:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    def train_step(self, data):
        """One optimization step on one batch; returns the running metrics.

        Args:
            data: one batch: ``x``, ``(x, y)`` or ``(x, y, sample_weight)``.

        Returns:
            A dict of the running metrics (``loss`` first).
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
            scaled = self.optimizer.scale_loss(loss)  # a LossScaleOptimizer's; the others return it as is
        grads = tape.gradient(scaled, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return self._update_metrics(loss, x, y, y_pred, sample_weight)

    def test_step(self, data):
        """Loss and metrics on one batch, without training.

        Args:
            data: one batch: ``x``, ``(x, y)`` or ``(x, y, sample_weight)``.

        Returns:
            A dict of the metrics.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight)
        return self._update_metrics(loss, x, y, y_pred, sample_weight)

    def _update_metrics(self, loss, x, y, y_pred, sample_weight):
        self._loss_tracker.update_state(loss, sample_weight=num_examples(x))
        if isinstance(self.compiled_loss, MultiOutputLoss):
            self.compiled_loss.update_trackers(num_examples(x))
        for metric in self.compiled_metrics:
            metric.update_state(y, y_pred, sample_weight)
        return {m.name: m.result() for m in self.metrics}

    def train_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """One ``train_step`` on the given batch; returns the loss (and metrics).

        Args:
            x: one batch of inputs.
            y: its targets.
            sample_weight: a weight per example.
            return_dict: return a dict of the logs instead of a list.

        Returns:
            The loss (a float), or a list of the loss and the metrics; a dict with ``return_dict``.

        Raises:
            ValueError: the model is not compiled.
        """
        self._assert_compiled()
        self.reset_metrics()
        logs = _logs(self.train_step(pack_x_y_sample_weight(x, y, sample_weight)))
        return logs if return_dict else _flat_logs(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """Loss and metrics on one batch, without training.

        Args:
            x: one batch of inputs.
            y: its targets.
            sample_weight: a weight per example.
            return_dict: return a dict instead of a list.

        Returns:
            The loss (a float), or a list of the loss and the metrics; a dict with ``return_dict``.
        """
        self._assert_compiled()
        self.reset_metrics()

        with state.no_tapes():
            logs = _logs(self.test_step(pack_x_y_sample_weight(x, y, sample_weight)))
        return logs if return_dict else _flat_logs(logs)

    def predict_on_batch(self, x):
        """The model's outputs on one batch, as NumPy arrays (``training=False``, not recorded).

        Args:
            x: one batch of inputs.

        Returns:
            A NumPy array (a list of them for several outputs).
        """
        with state.no_tapes():
            return _to_numpy(self(x, training=False))

    # -- batching ---------------------------------------------------------------------------------
    def _batches(self, x, y, sample_weight, batch_size, shuffle):
        """An iterable of (x, y, sample_weight) batches, and how many there are."""
        if isinstance(x, PyDataset):
            if y is not None:
                raise ValueError("`y` argument is not supported when using a PyDataset as input: it yields (x, y).")
            order = np.arange(len(x))
            if shuffle:  # the order of the batches, as Keras's PyDataset adapter shuffles
                order = getattr(tf_random, "generator", np.random.default_rng)().permutation(len(x))
            return py_dataset_batches(x, order), len(x)

        if isinstance(x, Dataset):
            if y is not None:
                raise ValueError(
                    "`y` argument is not supported when using a dataset as input: the dataset yields (x, y)."
                )
            try:
                count = len(x)
            except TypeError:
                count = None
            return (b if isinstance(b, tuple) else (b,) for b in x), count
        x = to_host(x)
        y = None if y is None else to_host(y)
        sample_weight = None if sample_weight is None else to_host(sample_weight)
        n = num_examples(x)
        if y is not None and num_examples(y) != n:
            raise ValueError(
                f"Data cardinality is ambiguous: x has {n} samples but y has {num_examples(y)}. Make sure all arrays contain the same number of samples."
            )
        batch_size = batch_size or 32
        order = np.arange(n)
        if shuffle:  # Keras's TF backend: tf.random.shuffle in its dataset's map, seeded (global seed, 0)
            order = tf_random.traced_shuffle_order(n)

        def generate():
            for start in range(0, n, batch_size):
                rows = order[start : start + batch_size]
                yield pack_x_y_sample_weight(
                    take_rows(x, rows),
                    None if y is None else take_rows(y, rows),
                    None if sample_weight is None else take_rows(sample_weight, rows),
                )

        return generate(), -(-n // batch_size)

    # -- fit / evaluate / predict -------------------------------------------------------------------
    def fit(
        self,
        x=None,
        y=None,
        batch_size=None,
        epochs=1,
        verbose="auto",
        callbacks=None,
        validation_split=0.0,
        validation_data=None,
        shuffle=True,
        class_weight=None,
        sample_weight=None,
        initial_epoch=0,
        steps_per_epoch=None,
        validation_batch_size=None,
        validation_freq=1,
        **kwargs,
    ):
        """Train for ``epochs`` passes over the data; returns a ``History``.

        ``x``/``y`` arrays (batched by ``batch_size``, default 32, reshuffled
        each epoch) or a ``tf.data.Dataset`` of (x, y) batches.
        ``validation_data=(x_val, y_val)`` or ``validation_split`` (the last
        fraction of the arrays, taken before shuffling, as Keras) adds
        ``val_*`` entries to the history.

        Args:
            x: inputs (an array, a Tensor, a list or dict of them for several
                inputs) or a ``tf.data.Dataset`` yielding ``(x, y)`` batches.
            y: targets, with ``x`` as arrays; None with a Dataset.
            batch_size: examples per gradient step (32 by default).
            epochs: passes over the data.
            verbose: ``"auto"`` / 1 (a progress bar), 2 (a line per epoch), 0 (silent).
            callbacks: ``tf.keras.callbacks`` objects (``EarlyStopping``...).
            validation_split: the fraction of the arrays kept for validation.
            validation_data: ``(x_val, y_val)`` evaluated after each epoch.
            shuffle: reshuffle the arrays before each epoch.
            class_weight: a dict weighting each class in the loss.
            sample_weight: a weight per example.
            initial_epoch: the epoch to start counting from.
            steps_per_epoch: batches per epoch (a Dataset that repeats).
            validation_batch_size: batch size of the validation data.
            validation_freq: validate every this many epochs.
            **kwargs: other Keras options, accepted for compatibility.

        Returns:
            A ``History`` object; ``history.history["loss"]`` holds each epoch's mean loss.

        Raises:
            ValueError: the model is not compiled, or there is no data.

        Example:
            >>> import numpy as np
            >>> import tapeviz as tf
            >>> tf.keras.utils.set_random_seed(0)
            >>> model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            >>> model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
            >>> x = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], dtype="float32")
            >>> y = x.sum(axis=1, keepdims=True)
            >>> history = model.fit(x, y, epochs=20, verbose=0)
            >>> history.history["loss"][-1] < history.history["loss"][0]
            True
        """
        self._assert_compiled()
        if x is None:
            raise ValueError("fit() needs training data: model.fit(x, y, ...).")
        if validation_split and validation_data is None:
            if isinstance(x, Dataset):
                raise ValueError("`validation_split` is only supported for arrays, not for a tf.data.Dataset.")
            x, y = to_host(x), to_host(y)
            n = num_examples(x)
            cut = int(n * (1.0 - validation_split))
            validation_data = (take_rows(x, slice(cut, None)), take_rows(y, slice(cut, None)))
            x, y = take_rows(x, slice(0, cut)), take_rows(y, slice(0, cut))
        verbose = _verbosity(verbose)
        epochs, steps_per_epoch = _capped(epochs, steps_per_epoch)
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(callbacks, add_history=True, model=self, verbose=verbose, epochs=epochs)
        self.stop_training = False
        callbacks.on_train_begin()
        resumed = self.__dict__.pop("_initial_epoch", None)  # set by BackupAndRestore, as Keras 3
        initial_epoch = resumed or initial_epoch
        training_logs = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            batches, count = self._batches(x, y, sample_weight, batch_size, shuffle)
            if epoch == initial_epoch:
                callbacks.set_params({"verbose": verbose, "epochs": epochs, "steps": count})
            if verbose in (1, 2):
                print_message(f"Epoch {epoch + 1}/{epochs}")
            bar = Progbar(count) if verbose == 1 else None
            started = time.perf_counter()
            logs, step = {}, 0
            for step, batch in enumerate(batches, start=1):
                callbacks.on_train_batch_begin(step - 1)
                logs = self.train_step(batch)
                if bar is not None:
                    bar.update(step, _logs(logs))
                callbacks.on_train_batch_end(step - 1, _logs(logs))
                if self.stop_training or (steps_per_epoch and step >= steps_per_epoch):
                    break
            logs = _logs(logs)
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                val = self.evaluate(
                    *_validation(validation_data),
                    batch_size=validation_batch_size or batch_size,
                    verbose=0,
                    return_dict=True,
                    callbacks=callbacks,
                )
                logs.update({f"val_{k}": v for k, v in val.items()})
            if bar is not None:
                bar.finish(step, logs)
            elif verbose == 2:
                print_message(summary_line(step, count, time.perf_counter() - started, logs))
            callbacks.on_epoch_end(epoch, logs)
            training_logs = logs
            if self.stop_training:
                break
        callbacks.on_train_end(training_logs)
        return self.history

    def evaluate(
        self,
        x=None,
        y=None,
        batch_size=None,
        verbose="auto",
        sample_weight=None,
        steps=None,
        callbacks=None,
        return_dict=False,
        **kwargs,
    ):
        """The loss (and metrics) over the data, without training.

        Args:
            x: inputs, or a ``tf.data.Dataset`` of ``(x, y)`` batches.
            y: targets, with ``x`` as arrays.
            batch_size: examples per batch (32 by default).
            verbose: ``"auto"`` / 1 (a progress bar), 2 (one line, as Keras) or 0 (silent).
            sample_weight: a weight per example.
            steps: batches to evaluate (all by default).
            callbacks: ``tf.keras.callbacks`` objects.
            return_dict: return ``{"loss": ..., metric: ...}`` instead of a list.
            **kwargs: other Keras options, accepted for compatibility.

        Returns:
            The loss (a float) when there are no metrics, else
            ``[loss, metric...]``, or a dict with ``return_dict=True``.

        Raises:
            ValueError: the model is not compiled.

        Example:
            >>> import numpy as np
            >>> import tapeviz as tf
            >>> tf.keras.utils.set_random_seed(0)
            >>> model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            >>> model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
            >>> x = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], dtype="float32")
            >>> y = x.sum(axis=1, keepdims=True)
            >>> loss = model.evaluate(x, y, verbose=0)
            >>> isinstance(loss, float)
            True
        """

        self._assert_compiled()
        self.reset_metrics()
        batches, count = self._batches(x, y, sample_weight, batch_size, shuffle=False)
        verbose = _verbosity(verbose)
        bar = Progbar(count) if verbose == 1 else None
        started = time.perf_counter()
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(callbacks, model=self, verbose=verbose, epochs=1, steps=count)
        callbacks.on_test_begin()
        logs, step = {}, 0
        with state.no_tapes():
            for step, batch in enumerate(batches, start=1):
                callbacks.on_test_batch_begin(step - 1)
                logs = self.test_step(batch)
                callbacks.on_test_batch_end(step - 1, _logs(logs))
                if bar is not None:
                    bar.update(step, _logs(logs))
                if steps and step >= steps:
                    break
        logs = _logs(logs)
        if bar is not None:
            bar.finish(step, logs)
        elif verbose == 2:
            print_message(summary_line(step, count, time.perf_counter() - started, logs))
        callbacks.on_test_end(logs)
        return logs if return_dict else _flat_logs(logs)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None, **kwargs):
        """The model's outputs as NumPy arrays, batch by batch, with training=False.

        Not recorded by any tape (as in TF): calling it inside a GradientTape
        gives no gradient. Use ``model(x)`` to differentiate.

        Args:
            x: inputs, or a ``tf.data.Dataset`` (its first elements are the inputs).
            batch_size: examples per batch (32 by default).
            verbose: ``"auto"`` / 1 (a progress bar), 2 (one line, as Keras) or 0 (silent).
            steps: batches to predict (all by default).
            callbacks: ``tf.keras.callbacks`` objects.
            **kwargs: other Keras options, accepted for compatibility.

        Returns:
            A NumPy array of outputs (a list of them for several outputs).

        Raises:
            ValueError: no batch to predict (an empty input).

        Example:
            >>> import numpy as np
            >>> import tapeviz as tf
            >>> tf.keras.utils.set_random_seed(0)
            >>> model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
            >>> model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
            >>> x = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], dtype="float32")
            >>> y = x.sum(axis=1, keepdims=True)
            >>> model.predict(x, verbose=0).shape
            (3, 1)
        """

        if isinstance(x, Dataset):
            batches = ((unpack_x_y_sample_weight(b)[0],) for b in x)
            count = None
        else:
            batches, count = self._batches(x, None, None, batch_size, shuffle=False)
        verbose = _verbosity(verbose)
        bar = Progbar(count) if verbose == 1 else None
        started = time.perf_counter()
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(callbacks, model=self, verbose=verbose, epochs=1, steps=count)
        callbacks.on_predict_begin()
        outputs, step = [], 0
        with state.no_tapes():
            for step, batch in enumerate(batches, start=1):
                callbacks.on_predict_batch_begin(step - 1)
                outputs.append(_to_numpy(self(unpack_x_y_sample_weight(batch)[0], training=False)))
                callbacks.on_predict_batch_end(step - 1, {"outputs": outputs[-1]})
                if bar is not None:
                    bar.update(step)
                if steps and step >= steps:
                    break
        if bar is not None:
            bar.finish(step)
        elif verbose == 2:
            print_message(summary_line(step, count, time.perf_counter() - started))
        callbacks.on_predict_end()
        if not outputs:
            raise ValueError(
                "Unexpected result of `predict_function` (Empty batch_outputs). Please use `Model.compile(..., run_eagerly=True)`, or `tf.data.Dataset` with non-empty input."
            )
        first = outputs[0]
        if isinstance(first, np.ndarray):
            return np.concatenate(outputs)
        return nest.pack_sequence_as(
            first, [np.concatenate(parts) for parts in zip(*[nest.flatten(o) for o in outputs])]
        )


def _validation(data):
    if isinstance(data, tuple):
        return data[0], data[1] if len(data) > 1 else None
    return data, None


def _flat_logs(logs):
    values = list(logs.values())
    return values[0] if len(values) == 1 else values


def _to_numpy(outputs):
    return nest.map_structure(lambda t: t.numpy() if isinstance(t, Tensor) else np.asarray(t), outputs)


def _capped(epochs, steps_per_epoch):
    """``fit``'s epochs and steps per epoch under ``keras.config``'s caps, warning where they cut (as Keras)."""
    most = config.max_epochs()
    if most is not None and epochs > most:
        warnings.warn(f"Limiting epochs to {most}", stacklevel=3)
        epochs = most
    most = config.max_steps_per_epoch()
    if most is not None and (steps_per_epoch is None or steps_per_epoch > most):
        warnings.warn(f"Limiting steps_per_epoch to {most}", stacklevel=3)
        steps_per_epoch = most
    return epochs, steps_per_epoch
