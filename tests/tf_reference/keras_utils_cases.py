"""keras.utils facts (pad_sequences, to_categorical, normalize, PyDataset in fit), computed by the same code
on Keras 3 / TF and on tapeviz. Nothing here imports TensorFlow or tapeviz."""

import numpy as np

SEQS = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10], []]


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the message is the fact
        return [type(exc).__name__, str(exc)]
    return None


def facts(keras):
    U = keras.utils
    out = {}
    for name, kwargs in {
        "default": {},
        "post": {"padding": "post"},
        "maxlen_pre": {"maxlen": 3},
        "maxlen_post_trunc": {"maxlen": 3, "truncating": "post", "padding": "post"},
        "value_float": {"maxlen": 4, "dtype": "float32", "value": -1.5},
    }.items():
        padded = U.pad_sequences(SEQS, **kwargs)
        out[f"pad:{name}"] = [str(padded.dtype), padded.tolist()]
    multi = U.pad_sequences([np.ones((2, 2)), np.zeros((1, 2))], maxlen=3, dtype="float32")
    out["pad:multidim"] = multi.tolist()
    out["pad:alias"] = keras.preprocessing.sequence.pad_sequences([[1], [2, 3]]).tolist()
    out["pad_errors"] = [
        _error(lambda: U.pad_sequences(SEQS, padding="middle")),
        _error(lambda: U.pad_sequences(SEQS, truncating="middle")),
        _error(lambda: U.pad_sequences([1, 2])),
    ]
    cat = U.to_categorical([[1], [0], [3]], num_classes=4)
    out["to_categorical"] = [str(cat.dtype), list(cat.shape), cat.tolist()]
    out["normalize"] = np.round(U.normalize(np.array([[3.0, 4.0], [1.0, 0.0]])), 6).tolist()
    out["normalize_l1_axis0"] = np.round(U.normalize(np.array([[3.0, 4.0], [1.0, 0.0]]), axis=0, order=1), 6).tolist()

    class Batches(U.PyDataset):
        def __init__(self, x, y, batch_size, **kwargs):
            super().__init__(**kwargs)
            self.x, self.y, self.batch_size, self.epochs_ended = x, y, batch_size, 0

        def __len__(self):
            return int(np.ceil(len(self.x) / self.batch_size))

        def __getitem__(self, index):
            rows = slice(index * self.batch_size, (index + 1) * self.batch_size)
            return self.x[rows], self.y[rows]

        def on_epoch_end(self):
            self.epochs_ended += 1

    x = (np.cos(np.arange(30) * 0.7)).reshape(10, 3).astype("float32")
    y = np.sin(np.arange(10)).reshape(10, 1).astype("float32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.set_weights([np.array([[0.3], [-0.2], [0.5]], "float32"), np.array([0.1], "float32")])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    data = Batches(x, y, 4, workers=1)
    history = model.fit(data, epochs=3, verbose=0, shuffle=False)
    out["pydataset_fit_loss"] = [round(v, 5) for v in history.history["loss"]]
    out["pydataset_len_workers"] = [len(data), data.num_batches, data.workers]
    out["pydataset_evaluate"] = round(float(model.evaluate(data, verbose=0)), 5)
    out["pydataset_epochs_ended_at_least"] = data.epochs_ended >= 3
    return out
