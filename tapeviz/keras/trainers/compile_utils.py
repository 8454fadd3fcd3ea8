"""``compile`` for models with several outputs: a list or dict of losses (and of metrics), as Keras 3.

The total loss is ``sum(loss_weights[k] * loss_k(y[k], y_pred[k]))``; each
output's loss is also tracked as ``<output>_loss`` and its metrics are named
``<output>_<metric>``, the output being a dict key or the name of the layer
that made it.
"""

from tapeviz.core import nest
from tapeviz.keras import losses as losses_module
from tapeviz.keras import metrics as metrics_module

__all__ = ["MultiOutputLoss", "OutputMetric", "output_metrics"]


def _pick(structure, key, index):
    """Output ``key`` (a dict) or number ``index`` (a list) of ``structure``; a single array serves every output."""
    if isinstance(structure, dict):
        return structure[key]
    if isinstance(structure, (list, tuple)):
        return structure[index]
    return structure


def _per_output(spec, names, what):
    """``spec`` (a dict by output name, or a list in output order) as a list in output order."""
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(names))
        if unknown:
            raise ValueError(
                f"In the dict argument `{what}`, keys {unknown} do not correspond to any model output. "
                f"Received: {what}={spec}, model output names: {names}"
            )
        return [spec.get(name) for name in names]
    spec = list(spec)
    if len(spec) != len(names):
        raise ValueError(
            f"For a model with multiple outputs, when providing the `{what}` argument as a list, it should have as "
            f"many entries as the model has outputs. Received:\\n{what}={spec}\\nof length {len(spec)} whereas the "
            f"model has {len(names)} outputs."
        )
    return spec


class MultiOutputLoss:
    """One loss per output, weighted and summed; ``trackers`` hold each output's running loss."""

    def __init__(self, losses, loss_weights, names):
        self.names = list(names)
        self.losses = [None if l is None else losses_module.as_loss(l) for l in _per_output(losses, self.names, "loss")]
        weights = (
            [1.0] * len(self.names) if loss_weights is None else _per_output(loss_weights, self.names, "loss_weights")
        )
        self.weights = [1.0 if w is None else float(w) for w in weights]
        self.trackers = [
            metrics_module.Mean(name=f"{n}_loss") for n, l in zip(self.names, self.losses) if l is not None
        ]
        self._last = []

    def __call__(self, y_true, y_pred, sample_weight=None):
        total, self._last = None, []
        for index, (name, loss, weight) in enumerate(zip(self.names, self.losses, self.weights)):
            if loss is None:
                continue
            value = loss(_pick(y_true, name, index), _pick(y_pred, name, index), sample_weight)
            self._last.append(value)
            term = value * weight
            total = term if total is None else total + term
        return total

    def update_trackers(self, rows):
        for tracker, value in zip(self.trackers, self._last):
            tracker.update_state(value, sample_weight=rows)


class OutputMetric:
    """A metric of one output, named ``<output>_<metric>``."""

    def __init__(self, metric, name, index):
        self.metric, self.output, self.index = metric, name, index
        self.name = f"{name}_{metric.name}"
        self._direction = getattr(metric, "_direction", None)

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.metric.update_state(
            _pick(y_true, self.output, self.index), _pick(y_pred, self.output, self.index), sample_weight
        )

    def result(self):
        return self.metric.result()

    def reset_state(self):
        self.metric.reset_state()


def output_metrics(metrics, names, make):
    """``compile(metrics=...)`` for several outputs: a dict or list (one entry or list per output) -> OutputMetrics."""
    found = []
    for index, (name, entry) in enumerate(zip(names, _per_output(metrics, names, "metrics"))):
        for identifier in nest.flatten(entry) if entry is not None else []:
            found.append(OutputMetric(make(identifier), name, index))
    return found
