"""keras.callbacks facts, computed by the same code on Keras 3 / TF and on tapeviz.

``facts(keras, directory)`` trains small fixed-weight models with each
callback and returns plain data: the hooks ``fit``/``evaluate``/``predict``
call with their arguments and log keys, ``params``, the history, learning
rates, the files written. Nothing here imports TensorFlow or tapeviz.
"""

import os

import numpy as np

X = (np.cos(np.arange(24) * 0.7) * 1.2).reshape(8, 3).astype("float32")
Y = (np.sin(np.arange(8)) + 0.5).reshape(8, 1).astype("float32")


def model_of(keras, lr=0.1):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, name="out")])
    model.set_weights([np.array([[0.3], [-0.2], [0.5]], "float32"), np.array([0.1], "float32")])
    model.compile(optimizer=keras.optimizers.SGD(lr), loss="mse", metrics=["mae"])
    return model


def _round(logs):
    return {k: round(float(v), 5) for k, v in sorted((logs or {}).items()) if not isinstance(v, (list, np.ndarray))}


def recorder(keras):
    class Recorder(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.events = []

        def _note(self, hook, *args):
            self.events.append([hook, *args])

    hooks = [
        "on_train_begin",
        "on_train_end",
        "on_test_begin",
        "on_test_end",
        "on_predict_begin",
        "on_predict_end",
    ]
    indexed = [
        "on_epoch_begin",
        "on_epoch_end",
        "on_train_batch_begin",
        "on_train_batch_end",
        "on_test_batch_begin",
        "on_test_batch_end",
        "on_predict_batch_begin",
        "on_predict_batch_end",
    ]
    for hook in hooks:
        setattr(Recorder, hook, lambda self, logs=None, _h=hook: self._note(_h, _round(logs)))
    for hook in indexed:
        setattr(
            Recorder,
            hook,
            lambda self, index, logs=None, _h=hook: self._note(
                _h, index, sorted(logs) if "predict" in _h and logs else _round(logs)
            ),
        )
    return Recorder()


def facts(keras, directory):
    C = keras.callbacks
    out = {}
    model = model_of(keras)
    rec = recorder(keras)
    history = model.fit(
        X, Y, batch_size=4, epochs=2, validation_data=(X[:4], Y[:4]), shuffle=False, verbose=0, callbacks=[rec]
    )
    out["fit_events"] = rec.events
    out["params"] = {k: v for k, v in sorted(rec.params.items())}
    out["history"] = {k: [round(v, 5) for v in vs] for k, vs in sorted(history.history.items())}
    out["history_epoch"] = history.epoch
    out["model_history_is_returned"] = model.history is history
    rec.events = []
    model.evaluate(X, Y, batch_size=4, verbose=0, callbacks=[rec])
    model.predict(X, batch_size=4, verbose=0, callbacks=[rec])
    out["evaluate_predict_events"] = rec.events

    model = model_of(keras)
    stop = C.EarlyStopping(monitor="loss", min_delta=10.0, patience=1)
    out["early_stopping_epochs"] = model.fit(
        X, Y, batch_size=8, epochs=6, shuffle=False, verbose=0, callbacks=[stop]
    ).epoch
    out["early_stopping_stopped_epoch"] = stop.stopped_epoch

    model = model_of(keras)
    stop = C.EarlyStopping(monitor="loss", mode="max", patience=2, restore_best_weights=True)
    model.fit(X, Y, batch_size=8, epochs=5, shuffle=False, verbose=0, callbacks=[stop])
    out["early_stopping_restored"] = [np.round(w, 5).tolist() for w in model.get_weights()]
    out["early_stopping_best_epoch"] = stop.best_epoch

    model = model_of(keras)
    stop = C.EarlyStopping(monitor="val_mae", patience=0, baseline=0.01)
    out["early_stopping_baseline_epochs"] = model.fit(
        X, Y, batch_size=8, epochs=4, validation_data=(X, Y), shuffle=False, verbose=0, callbacks=[stop]
    ).epoch

    model = model_of(keras)
    plateau = C.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=10.0, cooldown=1)
    history = model.fit(X, Y, batch_size=8, epochs=6, shuffle=False, verbose=0, callbacks=[plateau])
    out["plateau_learning_rates"] = [round(v, 6) for v in history.history["learning_rate"]]
    out["plateau_loss"] = [round(v, 5) for v in history.history["loss"]]

    model = model_of(keras)
    schedule = C.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch else lr)
    history = model.fit(X, Y, batch_size=8, epochs=3, shuffle=False, verbose=0, callbacks=[schedule])
    out["scheduler_learning_rates"] = [round(v, 6) for v in history.history["learning_rate"]]
    out["scheduler_loss"] = [round(v, 5) for v in history.history["loss"]]
    model = model_of(keras)
    one_argument = C.LearningRateScheduler(lambda epoch: 0.05 / (epoch + 1))
    history = model.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0, callbacks=[one_argument])
    out["scheduler_one_argument"] = [round(v, 6) for v in history.history["learning_rate"]]

    path = os.path.join(directory, "log.csv")
    model = model_of(keras)
    model.fit(X, Y, batch_size=8, epochs=2, shuffle=False, verbose=0, callbacks=[C.CSVLogger(path)])
    model.fit(
        X,
        Y,
        batch_size=8,
        epochs=1,
        shuffle=False,
        verbose=0,
        callbacks=[C.CSVLogger(path, separator=";", append=True)],
    )
    with open(path, newline="") as f:
        rows = f.read().splitlines()
    out["csv_rows"] = [row.split(",")[0].split(";")[0] for row in rows]
    out["csv_header"] = rows[0]
    out["csv_first_row_values"] = [round(float(v), 5) for v in rows[1].split(",")[1:3]]

    model = model_of(keras)
    pattern = os.path.join(directory, "ckpt-{epoch:02d}-{loss:.3f}.weights.h5")
    model.fit(
        X,
        Y,
        batch_size=8,
        epochs=3,
        shuffle=False,
        verbose=0,
        callbacks=[C.ModelCheckpoint(pattern, monitor="loss", save_weights_only=True)],
    )
    out["checkpoint_files"] = sorted(f for f in os.listdir(directory) if f.startswith("ckpt-"))
    model = model_of(keras)
    best = os.path.join(directory, "best.weights.h5")
    checkpoint = C.ModelCheckpoint(best, monitor="loss", mode="max", save_best_only=True, save_weights_only=True)
    model.fit(X, Y, batch_size=8, epochs=3, shuffle=False, verbose=0, callbacks=[checkpoint])
    reloaded = model_of(keras)
    reloaded.load_weights(best)
    out["checkpoint_best_weights"] = [np.round(w, 5).tolist() for w in reloaded.get_weights()]
    out["checkpoint_best_value"] = round(float(checkpoint.best), 5)
    model = model_of(keras)
    model.fit(
        X,
        Y,
        batch_size=2,
        epochs=1,
        shuffle=False,
        verbose=0,
        callbacks=[
            C.ModelCheckpoint(
                os.path.join(directory, "b-{epoch}-{batch}.weights.h5"), save_weights_only=True, save_freq=3
            )
        ],
    )
    out["checkpoint_batch_files"] = sorted(f for f in os.listdir(directory) if f.startswith("b-"))
    out["checkpoint_errors"] = [
        _error(lambda: C.ModelCheckpoint("model.h6")),
        _error(lambda: C.ModelCheckpoint("w.h5", save_weights_only=True)),
        _error(lambda: C.ModelCheckpoint("m.keras", save_freq="often")),
        _error(lambda: C.ReduceLROnPlateau(factor=1.5)),
    ]

    backup_dir = os.path.join(directory, "backup")

    class Interrupt(C.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                raise RuntimeError("interrupted")

    model = model_of(keras)
    try:
        model.fit(
            X,
            Y,
            batch_size=8,
            epochs=4,
            shuffle=False,
            verbose=0,
            callbacks=[C.BackupAndRestore(backup_dir), Interrupt()],
        )
    except RuntimeError:
        pass
    out["backup_files"] = sorted(os.listdir(backup_dir))
    resumed = model_of(keras)
    history = resumed.fit(
        X, Y, batch_size=8, epochs=4, shuffle=False, verbose=0, callbacks=[C.BackupAndRestore(backup_dir)]
    )
    out["backup_resumed_epochs"] = history.epoch
    out["backup_resumed_loss"] = [round(v, 5) for v in history.history["loss"]]
    out["backup_weights"] = [np.round(w, 5).tolist() for w in resumed.get_weights()]
    out["backup_deleted"] = not os.path.exists(os.path.join(backup_dir, "latest.weights.h5"))

    seen = []
    model = model_of(keras)
    lam = C.LambdaCallback(
        on_epoch_end=lambda e, l: seen.append(["epoch_end", e, round(l["loss"], 5)]),
        on_train_begin=lambda logs: seen.append(["train_begin"]),
        on_train_batch_end=lambda b, logs: seen.append(["batch_end", b]),
        on_test_end=lambda logs: seen.append(["test_end", sorted(logs)]),
    )
    model.fit(X, Y, batch_size=4, epochs=1, validation_data=(X, Y), shuffle=False, verbose=0, callbacks=[lam])
    out["lambda_events"] = seen

    model = model_of(keras, lr=1e30)
    bad_y = Y * 1e30
    history = model.fit(X, bad_y, batch_size=2, epochs=3, shuffle=False, verbose=0, callbacks=[C.TerminateOnNaN()])
    out["terminate_on_nan_epochs"] = history.epoch
    out["terminate_on_nan_raise"] = _error(
        lambda: model_of(keras, lr=1e30).fit(
            X, bad_y, batch_size=2, epochs=1, shuffle=False, verbose=0, callbacks=[C.TerminateOnNaN(raise_error=True)]
        )
    )
    return out


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the message is the fact
        return [type(exc).__name__, str(exc)]
    return None
