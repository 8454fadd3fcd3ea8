"""``MonitorCallback``: the base of callbacks that watch one logged quantity (mode, best, improvement)."""

import warnings

import numpy as np

from tapeviz.keras.callbacks.callback import Callback


class MonitorCallback(Callback):
    """What EarlyStopping, ReduceLROnPlateau and ModelCheckpoint share: a watched value and its direction."""

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ["auto", "min", "max"]:
            warnings.warn(f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.", stacklevel=2)
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self):
        if self.mode == "min":
            self.monitor_op = np.less
        elif self.mode == "max":
            self.monitor_op = np.greater
        else:
            metric_name = self.monitor.removeprefix("val_")
            if metric_name == "loss":
                self.monitor_op = np.less
            for metric in getattr(self.model, "metrics", None) or []:
                for inner in getattr(metric, "metrics", [metric]):
                    direction = getattr(inner, "_direction", None)
                    if getattr(inner, "name", None) == metric_name and direction is not None:
                        self.monitor_op = np.greater if direction == "up" else np.less
            if self.monitor_op is None:
                raise ValueError(
                    f"{type(self).__name__} callback received monitor={self.monitor}, but Keras isn't able to "
                    "automatically determine whether that metric should be maximized or minimized. Pass "
                    "`mode='max'` in order to monitor based on the highest metric value, or pass `mode='min'` "
                    "in order to use the lowest value."
                )
        if self.monitor_op is np.less:
            self.min_delta *= -1

    def _is_improvement(self, monitor_value, reference_value):
        if reference_value is None:
            return True
        return bool(self.monitor_op(monitor_value - self.min_delta, reference_value))
