"""Our own reproductions of the API each cell of TensorFlow's training guides uses, offline and small.

The guides (run whole by tools/run_guide.py):
- tensorflow/docs site/en/guide/basic_training_loops.ipynb
- tensorflow/docs site/en/tutorials/customization/custom_training_walkthrough.ipynb
- keras-io guides/writing_a_custom_training_loop_in_tensorflow.py (Keras 3)
- keras-io guides/writing_a_training_loop_from_scratch.py (the tf.keras-era one)
Data is synthetic, of the shapes the guides use. Where TF 2.21 itself fails a
cell (a checkpoint name without `.weights.h5`, `metric.reset_states()`), the
test checks that tapeviz fails the same way.
"""

import contextlib
import importlib.util
import io

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import keras
from tapeviz.keras import layers

# -- basic_training_loops ------------------------------------------------------------------------


class LinearModule(tf.Module):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

    def __call__(self, x):
        return self.w * x + self.b


def _line_data():
    x = tf.constant(np.linspace(-2, 2, 201, dtype=np.float32))
    noise = np.random.default_rng(0).normal(size=201).astype(np.float32)
    return x, x * 3.0 + 2.0 + noise


def _mse(target, predicted):
    return tf.reduce_mean(tf.square(target - predicted))


def test_basic_training_loop_with_a_module():
    model = LinearModule()
    # TF: Variables: (<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.0>, <... numpy=5.0>) - b before w
    assert [float(v.numpy()) for v in model.variables] == [0.0, 5.0]
    assert float(model(3.0).numpy()) == 15.0
    x, y = _line_data()
    losses = []
    for _ in range(10):
        with tf.GradientTape() as tape:
            current = _mse(y, model(x))
        dw, db = tape.gradient(current, [model.w, model.b])
        model.w.assign_sub(0.1 * dw)
        model.b.assign_sub(0.1 * db)
        losses.append(float(current))
    assert losses == sorted(losses, reverse=True) and abs(float(model.w.numpy()) - 3.0) < 0.3


def test_basic_training_loop_with_a_keras_model_holding_tf_variables(tmp_path):
    class LinearKeras(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def call(self, x):
            return self.w * x + self.b

    with pytest.warns(UserWarning, match="does not track"):
        model = LinearKeras()
    assert model.trainable_variables == []  # TF 2.21: [] too
    with pytest.raises(ValueError, match="must end in `.weights.h5`"):  # the guide's cell fails on TF 2.21 too
        model.save_weights(str(tmp_path / "my_checkpoint"))
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss=keras.losses.mean_squared_error)
    x, y = _line_data()
    history = model.fit(x, y, epochs=2, batch_size=1000, verbose=0)
    # Nothing tracked, nothing trained (the epochs' means differ only in summation order).
    assert history.history["loss"][0] == pytest.approx(history.history["loss"][1], rel=1e-6)
    assert float(model.w.numpy()) == 5.0


# -- custom_training_walkthrough -------------------------------------------------------------------


def test_custom_training_walkthrough_api():
    keras.utils.set_random_seed(0)  # the model's initial weights: the same in any test order
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, size=64)
    features = (np.eye(3, 4)[labels] + rng.normal(0, 0.1, size=(64, 4))).astype(np.float32)
    batches = tf.data.Dataset.from_tensor_slices((features, labels)).batch(32)
    model = keras.Sequential(
        [
            keras.layers.Dense(10, activation=tf.nn.relu, input_shape=(4,)),
            keras.layers.Dense(10, activation=tf.nn.relu),
            keras.layers.Dense(3),
        ]
    )
    batch_x, batch_y = next(iter(batches))
    predictions = model(batch_x)
    assert tuple(predictions[:5].shape) == (5, 3)
    np.testing.assert_allclose(tf.reduce_sum(tf.nn.softmax(predictions[:5]), axis=1).numpy(), 1.0, rtol=1e-6)
    loss_object = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = keras.optimizers.SGD(learning_rate=0.1)
    assert int(optimizer.iterations.numpy()) == 0
    first = None
    for _ in range(30):
        epoch_loss, epoch_accuracy = keras.metrics.Mean(), keras.metrics.SparseCategoricalAccuracy()
        for x, y in batches:
            with tf.GradientTape() as tape:
                loss_value = loss_object(y_true=y, y_pred=model(x, training=True))
            grads = tape.gradient(loss_value, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            epoch_loss.update_state(loss_value)
            epoch_accuracy.update_state(y, model(x, training=True))
        first = float(epoch_loss.result()) if first is None else first
    assert int(optimizer.iterations.numpy()) == 60 and float(epoch_loss.result()) < first
    test_accuracy = keras.metrics.Accuracy()
    prediction = tf.math.argmax(model(features, training=False), axis=1, output_type=tf.int64)
    test_accuracy(prediction, labels)
    assert float(test_accuracy.result()) > 0.8
    assert tuple(tf.stack([labels, prediction], axis=1).shape) == (64, 2)


# -- writing a training loop from scratch (Keras 3 and tf.keras) ------------------------------------------


def _mnist_like(n=64):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 10, size=n).astype(np.uint8)
    x = rng.integers(0, 60, size=(n, 784)).astype(np.uint8)
    return x, y


def _digits_model():
    inputs = keras.Input(shape=(784,), name="digits")
    x = keras.layers.Dense(64, activation="relu")(inputs)
    x = keras.layers.Dense(64, activation="relu")(x)
    return keras.Model(inputs=inputs, outputs=keras.layers.Dense(10, name="predictions")(x))


def test_keras3_loop_with_apply_metrics_and_tf_function():
    model = _digits_model()
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_acc = keras.metrics.SparseCategoricalAccuracy()
    x, y = _mnist_like()
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(buffer_size=1024).batch(32)

    @tf.function
    def train_step(xb, yb):
        with tf.GradientTape() as tape:
            logits = model(xb, training=True)
            loss_value = loss_fn(yb, logits)
        optimizer.apply(tape.gradient(loss_value, model.trainable_weights), model.trainable_weights)
        train_acc.update_state(yb, logits)
        return loss_value

    for xb, yb in dataset:
        loss_value = train_step(xb, yb)
    assert f"{float(loss_value):.4f}" and int(optimizer.iterations.numpy()) == 2
    assert 0.0 <= float(train_acc.result()) <= 1.0
    train_acc.reset_state()
    assert float(train_acc.result()) == 0.0


def test_losses_added_by_a_layer_reach_the_loop():
    class ActivityRegularization(keras.layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-2 * tf.reduce_sum(inputs))
            return inputs

    inputs = keras.Input(shape=(784,), name="digits")
    x = ActivityRegularization()(keras.layers.Dense(8, activation="relu")(inputs))
    model = keras.Model(inputs=inputs, outputs=keras.layers.Dense(10)(x))
    xb, _ = _mnist_like(4)
    with tf.GradientTape() as tape:
        hidden = model(xb.astype(np.float32), training=True)
        total = tf.reduce_sum(hidden) * 0 + sum(model.losses)
    assert len(model.losses) == 1 and float(total) >= 0
    assert all(g is not None for g in tape.gradient(total, model.trainable_weights)[:2])


def test_gan_step_with_the_guides_layers(tmp_path):
    discriminator = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            keras.layers.Conv2D(8, (3, 3), strides=(2, 2), padding="same"),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.Conv2D(8, (3, 3), strides=(2, 2), padding="same"),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.GlobalMaxPooling2D(),
            keras.layers.Dense(1),
        ],
        name="discriminator",
    )
    if importlib.util.find_spec("rich") is not None:  # summary() draws with rich (tapeviz[keras])
        lines = []
        discriminator.summary(print_fn=lines.append)
        assert any("global_max_pooling2d" in line for line in lines)
    latent_dim = 16
    generator = keras.Sequential(
        [
            keras.Input(shape=(latent_dim,)),
            keras.layers.Dense(7 * 7 * 8),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.Reshape((7, 7, 8)),
            keras.layers.Conv2DTranspose(8, (4, 4), strides=(2, 2), padding="same"),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.Conv2DTranspose(8, (4, 4), strides=(2, 2), padding="same"),
            keras.layers.LeakyReLU(negative_slope=0.2),
            keras.layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )
    d_optimizer, g_optimizer = keras.optimizers.Adam(3e-4), keras.optimizers.Adam(4e-4)
    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
    real = np.random.default_rng(2).uniform(size=(2, 28, 28, 1)).astype(np.float32)
    generated = generator(tf.random.normal(shape=(2, latent_dim)))
    assert tuple(generated.shape) == (2, 28, 28, 1)
    labels = tf.concat([tf.ones((2, 1)), tf.zeros((2, 1))], axis=0)
    labels += 0.05 * tf.random.uniform(labels.shape)
    with tf.GradientTape() as tape:
        d_loss = loss_fn(labels, discriminator(tf.concat([generated, real], axis=0)))
    d_optimizer.apply(tape.gradient(d_loss, discriminator.trainable_weights), discriminator.trainable_weights)
    with tf.GradientTape() as tape:
        g_loss = loss_fn(tf.zeros((2, 1)), discriminator(generator(tf.random.normal(shape=(2, latent_dim)))))
    grads = tape.gradient(g_loss, generator.trainable_weights)
    assert all(g is not None for g in grads)
    g_optimizer.apply(grads, generator.trainable_weights)
    image = keras.utils.array_to_img(generated[0] * 255.0, scale=False)
    image.save(str(tmp_path / "generated_img_0.png"))
    assert image.size == (28, 28)


def test_the_tf_keras_era_guide_fails_where_tf_2_21_fails():
    model = _digits_model()
    optimizer = keras.optimizers.SGD(learning_rate=1e-3)
    x, y = _mnist_like(8)
    with tf.GradientTape() as tape:
        loss_value = keras.losses.SparseCategoricalCrossentropy(from_logits=True)(y, model(x, training=True))
    optimizer.apply_gradients(zip(tape.gradient(loss_value, model.trainable_weights), model.trainable_weights))
    metric = keras.metrics.SparseCategoricalAccuracy()
    with pytest.raises(
        AttributeError, match="reset_state"
    ):  # TF 2.21: 'SparseCategoricalAccuracy' ... no attribute 'reset_states'
        metric.reset_states()
    with pytest.warns(UserWarning, match="`alpha` is deprecated"):
        layers.LeakyReLU(alpha=0.2)
    assert keras.preprocessing.image.array_to_img is keras.utils.array_to_img


def test_the_guide_runner_splits_rewrites_and_reports(tmp_path):
    import json
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2] / "tools"))
    import run_guide

    source = (
        '"""\nTitle\n"""\nimport tensorflow as tf\nimport keras\n\n"""\n## prose\n"""\n'
        'x = tf.constant([1.0, 2.0])\nprint("%.1f" %\n      float(tf.reduce_sum(x)))\n\n"""\nmore\n"""\n'
        '(x_train, y_train), _ = keras.datasets.mnist.load_data()\nx_train.shape\n\n"""\n"""\nundefined_name\n'
    )
    guide = tmp_path / "guide.py"
    guide.write_text(source)
    cells = run_guide.extract_cells(str(guide))
    assert len(cells) == 4 and cells[0].startswith("import tensorflow")
    code, made = run_guide.rewrite(cells[0], "tapeviz", notebook=False)
    assert "import tapeviz as tf" in code and "from tapeviz import keras" in code and not made
    results = run_guide.run_guide(str(guide), "tapeviz", quiet=True)
    assert [r["status"] for r in results] == ["ok", "ok", "ok", "FAIL"]
    seen = []
    run_guide.run_guide(str(guide), "tapeviz", quiet=True, after_cell=lambda done: seen.append(len(done)))
    assert seen == [1, 2, 3, 4]  # --json rewrites its file after each cell: a timed-out run keeps them
    assert run_guide.main([str(guide), "--quiet", "--json", str(tmp_path / "out.json")]) == 1
    assert [r["status"] for r in json.loads((tmp_path / "out.json").read_text())] == ["ok", "ok", "ok", "FAIL"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["guide.py", "out.json"]  # no temporary file left
    assert results[1]["stdout"] == "3.0\n"  # an indented '%' continuation is code, not a magic
    assert results[2]["stdout"] == "(12000, 28, 28)\n" and results[2]["substitutions"]
    notebook = tmp_path / "guide.ipynb"
    notebook.write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "source": ["!pip install nothing\n", "import tensorflow as tf\n", "tf.constant(2.0) * 3"],
                    },
                    {"cell_type": "markdown", "source": ["# prose"]},
                ]
            }
        )
    )
    results = run_guide.run_guide(str(notebook), "tapeviz", quiet=True)
    assert results[0]["status"] == "ok" and "numpy=6.0" in results[0]["stdout"]
    # The quickstarts' forms: a keras submodule import, and mnist.load_data() through a name.
    code, made = run_guide.rewrite(
        "from tensorflow.keras.layers import Dense, Flatten\nmnist = tf.keras.datasets.mnist\n"
        "(x, y), _ = mnist.load_data()",
        "tapeviz",
    )
    assert code.startswith("from tapeviz.keras.layers import Dense, Flatten\n")
    assert code.endswith("(x, y), _ = _guide_mnist()") and made == ["MNIST download -> synthetic MNIST"]
    namespace = {"__name__": "__guide__"}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        run_guide.run_cell(
            "import inspect\ndef f(x):\n    return x + 1\nprint(inspect.getsource(f))", namespace, "<cell 7>"
        )
    assert printed.getvalue() == "def f(x):\n    return x + 1\n\n"  # AutoGraph's to_code reads a cell's source so
    tnp_code, _ = run_guide.rewrite(
        "import tensorflow.experimental.numpy as tnp\nfrom tensorflow.math import abs", "tapeviz"
    )
    assert tnp_code == "import tapeviz.experimental.numpy as tnp\nfrom tapeviz.math import abs"  # the tf_numpy guide
    namespace = {}
    exec(run_guide.PRELUDE, namespace)  # effective_tf2's tfds.load('mnist'): every split, (28, 28, 1) images
    splits, _ = namespace["_guide_tfds"].load(name="mnist", with_info=True, as_supervised=True)
    image, label = next(iter(splits["train"]))
    assert sorted(splits) == ["test", "train"] and image.shape == (28, 28, 1) and label.dtype == tf.int64


def test_the_guide_runner_writes_keras_cache_files_and_the_auto_mpg_rows(tmp_path):
    """Downloads TF's tutorials make, in the formats Keras's loader and pandas read (the same in both runs)."""
    import gzip
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[2] / "tools"))
    import run_guide

    folder = tmp_path / "datasets" / "fashion-mnist"
    assert run_guide.write_keras_cache(str(tmp_path)) == str(tmp_path)
    with gzip.open(folder / "train-labels-idx1-ubyte.gz", "rb") as f:  # as keras.datasets.fashion_mnist reads it
        labels_file = f.read()
    with gzip.open(folder / "t10k-images-idx3-ubyte.gz", "rb") as f:
        images_file = f.read()
    assert labels_file[:8] == (0x801).to_bytes(4, "big") + (12000).to_bytes(4, "big")
    labels = np.frombuffer(labels_file, np.uint8, offset=8)
    images = np.frombuffer(images_file, np.uint8, offset=16).reshape(-1, 28, 28)
    assert labels.shape == (12000,) and set(labels.tolist()) == set(range(10)) and images.shape == (2000, 28, 28)
    assert images_file[:16] == b"".join(n.to_bytes(4, "big") for n in (0x803, 2000, 28, 28))

    code, made = run_guide.rewrite("raw = pd.read_csv(url, names=column_names,\n  na_values='?')", "tapeviz")
    assert code.startswith("raw = pd.read_csv(_guide_csv(url), names=") and made
    namespace = {}
    exec(run_guide.PRELUDE, namespace)
    rows = namespace["_guide_csv"]("http://archive.ics.uci.edu/x/auto-mpg.data").read().splitlines()
    fields = [row.split("\t")[0].split() for row in rows]
    assert len(rows) == 398 and all(len(f) == 8 and row.split("\t")[1] for f, row in zip(fields, rows))
    assert sum(f[3] == "?" for f in fields) == 6  # the missing horsepowers the tutorial drops
    with pytest.raises(ValueError, match="no stand-in"):
        namespace["_guide_csv"]("http://example.com/other.csv")
    # guide/core/logistic_regression_core: wdbc.data, id, M/B, then 30 positive features, no header
    rows = [r.split(",") for r in namespace["_guide_csv"]("https://x/wdbc.data").read().splitlines()]
    assert len(rows) == 569 and {len(r) for r in rows} == {32} and {r[1] for r in rows} == {"M", "B"}
    assert min(float(v) for r in rows for v in r[2:]) > 0

    # tutorials/load_data/numpy: get_file('mnist.npz', url) finds the cached synthetic MNIST
    (x_train, y_train), (x_test, y_test) = namespace["_guide_mnist"]()
    with np.load(tf.keras.utils.get_file("mnist.npz", "https://x/mnist.npz", cache_dir=str(tmp_path))) as cached:
        assert (cached["x_train"] == x_train).all() and (cached["y_test"] == y_test).all()
    code, made = run_guide.rewrite("(a, b), _ = tf.keras.datasets.mnist.load_data()", "tapeviz")
    assert code == "(a, b), _ = _guide_mnist()" and made

    # guide/core/matrix_core: the downloaded photo -> a synthetic JPEG, uint8 RGB as imread gives a JPEG
    code, made = run_guide.rewrite("img_path = requests.get(img_link, stream=True).raw", "tapeviz")
    assert code == "img_path = _guide_image_file(img_link)" and made
    image_module = pytest.importorskip("PIL.Image", reason="the stand-in photo is written by Pillow")
    photo = np.asarray(image_module.open(namespace["_guide_image_file"]("https://x/corgi.jpg")))
    assert photo.shape == (192, 256, 3) and photo.dtype == np.uint8 and photo.std() > 20

    # guide/core/mlp_core: sliced splits, batches, and batch_size=-1 for whole tensors
    train, val = namespace["_guide_tfds"].load("mnist", split=["train[100:]", "train[0:100]"], batch_size=32,
                                               as_supervised=True)  # fmt: skip
    images, labels = next(iter(train))
    assert images.shape == (32, 28, 28, 1) and (labels.numpy() == y_train[100:132]).all()
    assert sum(int(b.shape[0]) for b, _ in val) == 100
    ((images, labels),) = namespace["_guide_tfds"].load("mnist", split=["test"], batch_size=-1, as_supervised=True)
    assert images.shape == (2000, 28, 28, 1) and labels.dtype == tf.int64
