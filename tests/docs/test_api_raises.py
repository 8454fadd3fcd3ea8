"""Every raise the API reference documents happens: the docs cannot drift from the code.

``CASES`` is a table: (public name, exception, a call with the bad input its docstring's
``Raises:`` entry describes). Each case is run and must raise that exception; and every
``Raises:`` entry of every docstring the reference lists (walked as ``docs/conf.py`` lists them,
see ``tests/docs/test_api_reference.py``) must have a case here, so a new entry comes with its test.
"""

import inspect

import numpy as np
import pytest

import tapeviz as tf
from tapeviz import errors, events, viz
from tests.docs.test_api_reference import OBJECTS, raised_names


def _tape(persistent=False):
    x = tf.Variable(3.0)
    with tf.GradientTape(persistent=persistent) as tape:
        y = x * x
    return tape, x, y


def _used_tape():
    tape, x, y = _tape()
    tape.gradient(y, x)
    return tape, x, y


def _reenter():
    tape = tf.GradientTape()
    with tape:
        with tape:
            pass


def _gradient_twice():
    tape, x, y = _used_tape()
    tape.gradient(y, x)


def _jacobian_twice():
    tape, x, y = _used_tape()
    tape.jacobian(y, x)


def _jacobian_of_several_targets():
    tape, x, y = _tape(persistent=True)
    tape.jacobian([y, y], x)


def _batch_jacobian_of_a_scalar():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x)
    tape.batch_jacobian(y, x)


def _outside_the_block(method):
    tape, _, _ = _tape()
    return getattr(tape, method)()


def _compiled_model(**compile_args):
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
    if compile_args:
        model.compile(**compile_args)
    return model


def _data():
    return np.ones((4, 2), "float32"), np.ones((4, 1), "float32")


def _custom_gradient_without_grad_fn():
    @tf.custom_gradient
    def f(x):
        return x * x  # not (outputs, grad_fn)

    f(tf.constant(2.0))


def _function_refusing_its_argument():
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def f(x):
        return x * 2.0

    f(tf.constant([1.0, 2.0, 3.0]))


def _player_before_gradient():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        _ = x * x
    viz.player(tape)


class _Subclassed(tf.keras.Model):
    """A subclassed model: no layer graph for clone_model to copy."""

    def call(self, inputs):
        return inputs


def _schedule_returning_text():
    callback = tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: "fast")
    callback.set_model(_compiled_model(optimizer="sgd", loss="mse"))
    callback.on_epoch_begin(0)


def _backup_of_an_unbuilt_model(tmp_path):
    callback = tf.keras.callbacks.BackupAndRestore(str(tmp_path / "backup"))
    callback.set_model(tf.keras.Sequential([tf.keras.layers.Dense(1)]))
    callback.on_train_begin()


def _save_a_plain_object(tmp_path):
    tf.saved_model.save(object(), str(tmp_path / "saved"))


# (public name as the reference lists it, exception, call). A call that takes ``tmp_path`` gets one.
CASES = [
    ("tapeviz.GradientTape", ValueError, _reenter),
    ("tapeviz.GradientTape.watch", ValueError, lambda: tf.GradientTape().watch(3.0)),
    ("tapeviz.GradientTape.stop_recording", ValueError, lambda: _outside_the_block("stop_recording")),
    ("tapeviz.GradientTape.reset", ValueError, lambda: _outside_the_block("reset")),
    ("tapeviz.GradientTape.gradient", RuntimeError, _gradient_twice),
    ("tapeviz.GradientTape.gradient", TypeError, lambda: _tape()[0].gradient(_tape()[2], 3.0)),
    (
        "tapeviz.GradientTape.gradient",
        errors.InvalidArgumentError,
        lambda: (lambda t, x, y: t.gradient(y, x, output_gradients=tf.ones([3])))(*_tape()),
    ),
    ("tapeviz.GradientTape.jacobian", TypeError, _jacobian_of_several_targets),
    ("tapeviz.GradientTape.jacobian", RuntimeError, _jacobian_twice),
    ("tapeviz.GradientTape.batch_jacobian", ValueError, _batch_jacobian_of_a_scalar),
    ("tapeviz.Variable.assign", ValueError, lambda: tf.Variable([1.0, 2.0]).assign([1.0, 2.0, 3.0])),
    (
        "tapeviz.Variable.assign_add",
        errors.InvalidArgumentError,
        lambda: tf.Variable([1.0, 2.0]).assign_add([1.0, 2.0, 3.0]),
    ),
    (
        "tapeviz.Variable.assign_sub",
        errors.InvalidArgumentError,
        lambda: tf.Variable([1.0, 2.0]).assign_sub([1.0, 2.0, 3.0]),
    ),
    ("tapeviz.constant", TypeError, lambda: tf.constant([1.0, 2.0, 3.0], shape=[2, 2])),
    ("tapeviz.custom_gradient", TypeError, _custom_gradient_without_grad_fn),
    ("tapeviz.function", TypeError, _function_refusing_its_argument),
    ("tapeviz.show", TypeError, lambda: tf.show(42)),
    (
        "tapeviz.autodiff.ForwardAccumulator",
        ValueError,
        lambda: tf.autodiff.ForwardAccumulator(tf.Variable([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])),
    ),
    ("tapeviz.autodiff.ForwardAccumulator", TypeError, lambda: tf.autodiff.ForwardAccumulator(3.0, 1.0)),
    ("tapeviz.saved_model.save", ValueError, _save_a_plain_object),
    ("tapeviz.saved_model.load", OSError, lambda tmp_path: tf.saved_model.load(str(tmp_path / "nothing"))),
    (
        "tapeviz.saved_model.load",
        ValueError,
        lambda tmp_path: ((tmp_path / "saved_model.pb").write_bytes(b"\x08\x01"), tf.saved_model.load(str(tmp_path))),
    ),
    ("tapeviz.keras.Model.save", ValueError, lambda tmp_path: _compiled_model().save(str(tmp_path / "model.h5"))),
    ("tapeviz.keras.Model.compile", ValueError, lambda: _compiled_model(optimizer="no_such_optimizer", loss="mse")),
    ("tapeviz.keras.Model.fit", ValueError, lambda: _compiled_model().fit(*_data(), verbose=0)),
    ("tapeviz.keras.Model.evaluate", ValueError, lambda: _compiled_model().evaluate(*_data(), verbose=0)),
    ("tapeviz.keras.load_model", ValueError, lambda tmp_path: tf.keras.models.load_model(str(tmp_path / "m.h5"))),
    ("tapeviz.keras.layers.Dense", ValueError, lambda: tf.keras.layers.Dense(0)),
    ("tapeviz.keras.optimizers.SGD", ValueError, lambda: tf.keras.optimizers.SGD(momentum=2.0)),
    ("tapeviz.keras.config.set_backend", ValueError, lambda: tf.keras.config.set_backend("jax")),
    ("tapeviz.keras.config.set_floatx", ValueError, lambda: tf.keras.config.set_floatx("float8")),
    ("tapeviz.keras.config.set_image_data_format", ValueError, lambda: tf.keras.config.set_image_data_format("rgb")),
    ("tapeviz.keras.backend.result_type", ValueError, lambda: tf.keras.backend.result_type("float32", "foo")),
    ("tapeviz.keras.backend.standardize_dtype", ValueError, lambda: tf.keras.backend.standardize_dtype("foo")),
    ("tapeviz.viz.player", ValueError, _player_before_gradient),
    ("tapeviz.Variable", ValueError, lambda: tf.Variable([1.0, 2.0], shape=[3])),
    ("tapeviz.convert_to_tensor", ValueError, lambda: tf.convert_to_tensor(tf.constant(1.0), dtype=tf.int32)),
    ("tapeviz.clip_by_value", ValueError, lambda: tf.clip_by_value([1.0, 2.0], [[0.0], [0.0]], 1.0)),
    ("tapeviz.concat", ValueError, lambda: tf.concat([], axis=0)),
    ("tapeviz.concat", errors.InvalidArgumentError, lambda: tf.concat([tf.ones([2, 2]), tf.ones([2, 3])], axis=0)),
    ("tapeviz.stack", ValueError, lambda: tf.stack([tf.ones([2]), tf.ones([3])])),
    ("tapeviz.transpose", ValueError, lambda: tf.transpose(tf.ones([2, 3]), perm=[0, 0])),
    ("tapeviz.squeeze", errors.InvalidArgumentError, lambda: tf.squeeze(tf.ones([2, 1]), axis=0)),
    ("tapeviz.gather", ValueError, lambda: tf.gather(tf.ones([2, 2]), [[0]], batch_dims=3)),
    ("tapeviz.gather", errors.InvalidArgumentError, lambda: tf.gather([1, 2, 3], [5])),
    ("tapeviz.linspace", errors.InvalidArgumentError, lambda: tf.linspace(0.0, 1.0, -1)),
    ("tapeviz.range", errors.InvalidArgumentError, lambda: tf.range(0, 5, 0)),
    ("tapeviz.one_hot", errors.InvalidArgumentError, lambda: tf.one_hot([0, 1], depth=-1)),
    ("tapeviz.fill", errors.InvalidArgumentError, lambda: tf.fill([2], [1.0, 2.0])),
    ("tapeviz.fill", errors.InvalidArgumentError, lambda: tf.fill([-1], 1.0)),
    ("tapeviz.where", ValueError, lambda: tf.where([True], x=[1.0])),
    ("tapeviz.where", TypeError, lambda: tf.where([1.0], [1.0], [2.0])),
    (
        "tapeviz.nn.sigmoid_cross_entropy_with_logits",
        ValueError,
        lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[0.0]),
    ),
    ("tapeviz.random.uniform", ValueError, lambda: tf.random.uniform([2], dtype=tf.int32)),
    ("tapeviz.random.uniform", TypeError, lambda: tf.random.uniform([2], dtype=tf.bool)),
    ("tapeviz.data.Dataset.from_tensor_slices", ValueError, lambda: tf.data.Dataset.from_tensor_slices(([1, 2], [1]))),
    ("tapeviz.data.Dataset.zip", TypeError, lambda: tf.data.Dataset.zip(([1, 2], [3, 4]))),
    ("tapeviz.data.Dataset.shuffle", ValueError, lambda: tf.data.Dataset.range(3).shuffle(0)),
    ("tapeviz.data.Dataset.batch", ValueError, lambda: tf.data.Dataset.range(3).batch(0)),
    ("tapeviz.data.Dataset.apply", TypeError, lambda: tf.data.Dataset.range(3).apply(lambda ds: [1, 2])),
    ("tapeviz.events.subscribe", TypeError, lambda: events.subscribe(object())),
    ("tapeviz.eye", errors.InvalidArgumentError, lambda: tf.eye(-1)),
    ("tapeviz.TensorArray", ValueError, lambda: tf.TensorArray(tf.float32)),
    ("tapeviz.TensorArray.write", IndexError, lambda: tf.TensorArray(tf.float32, size=2).write(-1, 1.0)),
    ("tapeviz.TensorArray.read", IndexError, lambda: tf.TensorArray(tf.float32, size=2).read(5)),
    ("tapeviz.TensorArray.read", ValueError, lambda: tf.TensorArray(tf.float32, size=2).read(0)),
    ("tapeviz.TensorArray.stack", ValueError, lambda: tf.TensorArray(tf.float32, size=2).stack()),
    ("tapeviz.TensorArray.unstack", IndexError, lambda: tf.TensorArray(tf.float32, size=1).unstack(tf.ones([3]))),
    (
        "tapeviz.TensorArray.split",
        ValueError,
        lambda: tf.TensorArray(tf.float32, size=0, dynamic_size=True).split(tf.ones([3]), [1, 2]),
    ),
    (
        "tapeviz.TensorArray.loop_tensor",
        ValueError,
        lambda: tf.TensorArray(tf.float32, size=0, dynamic_size=True).loop_tensor(),
    ),
    ("tapeviz.scan", ValueError, lambda: tf.scan(lambda a, x: a + x, tf.zeros([0]))),
    ("tapeviz.keras.layers.RandomFlip.call", ValueError, lambda: tf.keras.layers.RandomFlip()(tf.ones([2, 2]))),
    ("tapeviz.keras.layers.RandomFlip", ValueError, lambda: tf.keras.layers.RandomFlip(mode="diagonal")),
    (
        "tapeviz.keras.layers.RandomBrightness",
        ValueError,
        lambda: tf.keras.layers.RandomBrightness(0.2, value_range=(0,)),
    ),
    ("tapeviz.keras.layers.RandomGrayscale", ValueError, lambda: tf.keras.layers.RandomGrayscale(factor=2.0)),
    ("tapeviz.keras.layers.Solarization", ValueError, lambda: tf.keras.layers.Solarization(value_range=(0,))),
    (
        "tapeviz.keras.layers.AugMix",
        ValueError,
        lambda: tf.keras.layers.AugMix(factor=2.0),
    ),
    (
        "tapeviz.keras.layers.AutoContrast",
        ValueError,
        lambda: tf.keras.layers.AutoContrast(value_range=(0,)),
    ),
    (
        "tapeviz.keras.layers.CutMix",
        ValueError,
        lambda: tf.keras.layers.CutMix(factor=2.0),
    ),
    (
        "tapeviz.keras.layers.Equalization",
        ValueError,
        lambda: tf.keras.layers.Equalization(value_range=5),
    ),
    (
        "tapeviz.keras.layers.RandAugment",
        ValueError,
        lambda: tf.keras.layers.RandAugment(factor=1.5),
    ),
    (
        "tapeviz.keras.layers.RandomColorDegeneration",
        ValueError,
        lambda: tf.keras.layers.RandomColorDegeneration(2.0),
    ),
    (
        "tapeviz.keras.layers.RandomColorDegeneration.compute_output_shape",
        ValueError,
        lambda: tf.keras.layers.RandomColorDegeneration(0.1).compute_output_shape((None, 4, 4, 1)),
    ),
    (
        "tapeviz.keras.layers.RandomElasticTransform",
        NotImplementedError,
        lambda: tf.keras.layers.RandomElasticTransform(interpolation="cubic"),
    ),
    (
        "tapeviz.keras.layers.RandomElasticTransform",
        ValueError,
        lambda: tf.keras.layers.RandomElasticTransform(scale=2.0),
    ),
    (
        "tapeviz.keras.layers.RandomErasing",
        ValueError,
        lambda: tf.keras.layers.RandomErasing(factor=2.0),
    ),
    (
        "tapeviz.keras.layers.RandomGaussianBlur",
        ValueError,
        lambda: tf.keras.layers.RandomGaussianBlur(kernel_size=2),
    ),
    (
        "tapeviz.keras.layers.RandomHue",
        ValueError,
        lambda: tf.keras.layers.RandomHue(1.5),
    ),
    (
        "tapeviz.keras.layers.RandomHue.check_value_range",
        ValueError,
        lambda: tf.keras.layers.RandomHue.check_value_range((0, 1, 2)),
    ),
    (
        "tapeviz.keras.layers.RandomPerspective",
        NotImplementedError,
        lambda: tf.keras.layers.RandomPerspective(interpolation="cubic"),
    ),
    (
        "tapeviz.keras.layers.RandomPerspective",
        ValueError,
        lambda: tf.keras.layers.RandomPerspective(scale=2.0),
    ),
    (
        "tapeviz.keras.layers.RandomPosterization",
        ValueError,
        lambda: tf.keras.layers.RandomPosterization(9),
    ),
    (
        "tapeviz.keras.layers.RandomSaturation",
        ValueError,
        lambda: tf.keras.layers.RandomSaturation(0.5, value_range=(1,)),
    ),
    (
        "tapeviz.keras.layers.RandomSharpness",
        ValueError,
        lambda: tf.keras.layers.RandomSharpness(1.5),
    ),
    (
        "tapeviz.keras.layers.RandomShear",
        NotImplementedError,
        lambda: tf.keras.layers.RandomShear(0.1, fill_mode="mirror"),
    ),
    (
        "tapeviz.keras.layers.RandomShear",
        ValueError,
        lambda: tf.keras.layers.RandomShear(x_factor=1.5),
    ),
    (
        "tapeviz.keras.layers.Conv3DTranspose",
        ValueError,
        lambda: tf.keras.layers.Conv3DTranspose(2, 3, strides=2, dilation_rate=2),
    ),
    ("tapeviz.map_fn", ValueError, lambda: tf.map_fn(lambda x: x, tf.constant(1.0))),
    (
        "tapeviz.nn.conv3d_transpose",
        ValueError,
        lambda: tf.nn.conv3d_transpose(
            tf.ones([1, 2, 2, 2, 1]), tf.ones([1, 1, 1, 1, 1]), [1, 2, 2, 2, 1], 1, data_format="NCDHW"
        ),
    ),
    ("tapeviz.print", ValueError, lambda: tf.print(1, output_stream="nowhere")),
    (
        "tapeviz.keras.layers.EinsumDense.build",
        ValueError,
        lambda: tf.keras.layers.EinsumDense("abc,cd->abd", output_shape=(None, 4))(tf.ones([2, 3])),
    ),
    (
        "tapeviz.keras.layers.GroupNormalization.build",
        ValueError,
        lambda: tf.keras.layers.GroupNormalization(groups=3)(tf.ones([2, 4])),
    ),
    (
        "tapeviz.keras.layers.TimeDistributed.build",
        ValueError,
        lambda: tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(1))(tf.ones([2, 3])),
    ),
    (
        "tapeviz.keras.layers.Dot.build",
        ValueError,
        lambda: tf.keras.layers.Dot(axes=1)([tf.ones([2, 3]), tf.ones([2, 3]), tf.ones([2, 3])]),
    ),
    (
        "tapeviz.keras.layers.Concatenate.call",
        ValueError,
        lambda: tf.keras.layers.Concatenate()([tf.ones([2, 3]), tf.ones([3, 3])]),
    ),
    (
        "tapeviz.keras.layers.Subtract.call",
        ValueError,
        lambda: tf.keras.layers.Subtract()([tf.ones([2]), tf.ones([2]), tf.ones([2])]),
    ),
    (
        "tapeviz.keras.layers.CenterCrop.call",
        ValueError,
        lambda: tf.keras.layers.CenterCrop(5, 5)(tf.ones([1, 2, 2, 1])),
    ),
    ("tapeviz.keras.layers.Attention.call", ValueError, lambda: tf.keras.layers.Attention()(tf.ones([1, 2, 3]))),
    (
        "tapeviz.keras.metrics.R2Score.update_state",
        ValueError,
        lambda: tf.keras.metrics.R2Score().update_state(tf.ones([3]), tf.ones([3])),
    ),
    (
        "tapeviz.keras.metrics.F1Score.update_state",
        ValueError,
        lambda: tf.keras.metrics.F1Score().update_state(tf.ones([3]), tf.ones([3])),
    ),
    (
        "tapeviz.keras.callbacks.TerminateOnNaN.on_batch_end",
        RuntimeError,
        lambda: tf.keras.callbacks.TerminateOnNaN(raise_error=True).on_batch_end(0, {"loss": float("nan")}),
    ),
    (
        "tapeviz.keras.layers.InputSpec.check",
        ValueError,
        lambda: tf.keras.layers.InputSpec(ndim=3).check(tf.keras.layers.Dense(1), (2, 2)),
    ),
    (
        "tapeviz.keras.Model.add_weight",
        TypeError,
        lambda: tf.keras.layers.Dense(1).add_weight((2,), "zeros", "float32", True, None, None, "w", "extra"),
    ),
    ("tapeviz.keras.losses.get", ValueError, lambda: tf.keras.losses.get("no_such_loss")),
    (
        "tapeviz.keras.losses.deserialize",
        ValueError,
        lambda: tf.keras.losses.deserialize({"class_name": "NoSuchLoss", "config": {}}),
    ),
    (
        "tapeviz.keras.metrics.deserialize",
        ValueError,
        lambda: tf.keras.metrics.deserialize({"class_name": "NoSuchMetric", "config": {}}),
    ),
    (
        "tapeviz.keras.optimizers.Optimizer.get_slot",
        KeyError,
        lambda: tf.keras.optimizers.Adam().get_slot(tf.Variable(1.0), "zz"),
    ),
    ("tapeviz.keras.utils.array_to_img", ValueError, lambda: tf.keras.utils.array_to_img(np.ones((2, 2)))),
    ("tapeviz.keras.callbacks.LearningRateScheduler.on_epoch_begin", ValueError, _schedule_returning_text),
    ("tapeviz.keras.callbacks.BackupAndRestore.on_train_begin", ValueError, _backup_of_an_unbuilt_model),
    ("tapeviz.keras.Sequential.pop", TypeError, lambda: tf.keras.Sequential().pop()),
    (
        "tapeviz.keras.save_model",
        ValueError,
        lambda tmp_path: tf.keras.saving.save_model(_compiled_model(), str(tmp_path / "m.h5")),
    ),
    ("tapeviz.keras.models.clone_model", ValueError, lambda: tf.keras.models.clone_model(_Subclassed())),
    (
        "tapeviz.keras.optimizers.Optimizer.minimize",
        ValueError,
        lambda: tf.keras.optimizers.SGD().minimize(tf.constant(1.0), [tf.Variable(1.0)]),
    ),
    (
        "tapeviz.keras.utils.model_to_dot",
        ValueError,
        lambda: tf.keras.utils.model_to_dot(tf.keras.Sequential([tf.keras.layers.Dense(1)])),
    ),
    (
        "tapeviz.keras.utils.plot_model",
        ValueError,
        lambda tmp_path: tf.keras.utils.plot_model(_compiled_model(), to_file=str(tmp_path / "m.gif")),
    ),
    ("tapeviz.keras.utils.set_random_seed", ValueError, lambda: tf.keras.utils.set_random_seed(1.5)),
    (
        "tapeviz.data.Dataset.interleave",
        ValueError,
        lambda: tf.data.Dataset.range(3).interleave(tf.data.Dataset.range, cycle_length=0),
    ),
    ("tapeviz.data.Dataset.window", ValueError, lambda: tf.data.Dataset.range(3).window(0)),
    ("tapeviz.data.Dataset.padded_batch", ValueError, lambda: tf.data.Dataset.range(3).padded_batch(0)),
    ("tapeviz.data.Iterator.get_next", errors.OutOfRangeError, lambda: iter(tf.data.Dataset.range(0)).get_next()),
    (
        "tapeviz.keras.Model.load_weights",
        ValueError,
        lambda tmp_path: _compiled_model().load_weights(str(tmp_path / "w.ckpt")),
    ),
    ("tapeviz.keras.Model.compute_loss", ValueError, lambda: _compiled_model().compute_loss(y_pred=tf.ones([2, 1]))),
    ("tapeviz.keras.Model.set_weights", ValueError, lambda: _compiled_model().set_weights([np.ones(2)])),
    ("tapeviz.keras.Model.count_params", ValueError, lambda: tf.keras.layers.Dense(1).count_params()),
    ("tapeviz.keras.Model.get_layer", ValueError, lambda: _compiled_model().get_layer("no_such_layer")),
    (
        "tapeviz.keras.datasets.cifar100.load_data",
        ValueError,
        lambda: tf.keras.datasets.cifar100.load_data(label_mode="medium"),
    ),
    (
        "tapeviz.keras.datasets.california_housing.load_data",
        ValueError,
        lambda: tf.keras.datasets.california_housing.load_data(version="medium"),
    ),
    ("tapeviz.keras.utils.to_categorical", ValueError, lambda: tf.keras.utils.to_categorical([0, 5], num_classes=3)),
    (
        "tapeviz.keras.utils.pad_sequences",
        ValueError,
        lambda: tf.keras.utils.pad_sequences([[1], [2, 3]], padding="middle"),
    ),
    ("tapeviz.RaggedTensor", errors.InvalidArgumentError, lambda: tf.RaggedTensor.from_row_splits([1, 2], [0, 3])),
    ("tapeviz.RaggedTensor.row_lengths", ValueError, lambda: tf.ragged.constant([[1], [2, 3]]).row_lengths(axis=2)),
    ("tapeviz.SparseTensor", ValueError, lambda: tf.SparseTensor([[5]], [1.0], [2])),
    ("tapeviz.TensorSpec.cast", TypeError, lambda: tf.TensorSpec([2], tf.float32).cast(tf.ones([3]))),
    (
        "tapeviz.Variable.assign_slice",
        errors.InvalidArgumentError,
        lambda: tf.Variable([1.0, 2.0, 3.0])[0:2].assign([1.0, 2.0, 3.0]),
    ),
    ("tapeviz.name_scope", ValueError, lambda: tf.name_scope("")),
    ("tapeviz.TensorShape.as_list", ValueError, lambda: tf.TensorShape(None).as_list()),
    (
        "tapeviz.TensorShape.assert_is_compatible_with",
        ValueError,
        lambda: tf.TensorShape([2]).assert_is_compatible_with([3]),
    ),
    ("tapeviz.TensorShape", TypeError, lambda: tf.TensorShape([1.5])),
    ("tapeviz.TensorShape", ValueError, lambda: tf.TensorShape([-1])),
    ("tapeviz.TensorShape.assert_has_rank", ValueError, lambda: tf.TensorShape([2]).assert_has_rank(2)),
    (
        "tapeviz.TensorShape.assert_is_fully_defined",
        ValueError,
        lambda: tf.TensorShape([None]).assert_is_fully_defined(),
    ),
    ("tapeviz.TensorShape.assert_same_rank", ValueError, lambda: tf.TensorShape([2]).assert_same_rank([2, 3])),
    ("tapeviz.TensorShape.merge_with", ValueError, lambda: tf.TensorShape([2]).merge_with([3])),
    ("tapeviz.TensorShape.with_rank", ValueError, lambda: tf.TensorShape([2]).with_rank(2)),
    ("tapeviz.TensorShape.with_rank_at_least", ValueError, lambda: tf.TensorShape([2]).with_rank_at_least(2)),
    ("tapeviz.TensorShape.with_rank_at_most", ValueError, lambda: tf.TensorShape([2, 3]).with_rank_at_most(1)),
    ("tapeviz.backend.use", ValueError, lambda: tf.backend.use("jax")),
    (
        "tapeviz.keras.losses.CategoricalCrossentropy.fn",
        ValueError,
        lambda: tf.keras.losses.categorical_crossentropy([[0.0, 1.0]], [[0.5, 0.25, 0.25]]),
    ),
    (
        "tapeviz.keras.losses.SparseCategoricalCrossentropy.fn",
        ValueError,
        lambda: tf.keras.losses.sparse_categorical_crossentropy([[0, 1]], [[0.5, 0.5]]),
    ),
    ("tapeviz.keras.Variable", ValueError, lambda: tf.keras.Variable(1.0, name="a/b")),
    ("tapeviz.keras.DTypePolicy", ValueError, lambda: tf.keras.DTypePolicy("mixed_bfloat16")),
    ("tapeviz.keras.layers.InputLayer", ValueError, lambda: tf.keras.layers.InputLayer()),
    ("tapeviz.keras.layers.ReLU", ValueError, lambda: tf.keras.layers.ReLU(max_value=-1.0)),
    ("tapeviz.keras.layers.LeakyReLU", ValueError, lambda: tf.keras.layers.LeakyReLU(negative_slope=-1.0)),
    ("tapeviz.keras.layers.RNN", ValueError, lambda: tf.keras.layers.RNN(tf.keras.layers.Dense(1))),
    ("tapeviz.keras.layers.SimpleRNNCell", ValueError, lambda: tf.keras.layers.SimpleRNNCell(0)),
    ("tapeviz.keras.layers.Normalization", ValueError, lambda: tf.keras.layers.Normalization(mean=0.0)),
    ("tapeviz.keras.layers.UpSampling2D", ValueError, lambda: tf.keras.layers.UpSampling2D(interpolation="bilinear")),
    ("tapeviz.keras.layers.Lambda", ValueError, lambda: tf.keras.layers.Lambda(3)),
    ("tapeviz.keras.layers.TimeDistributed", ValueError, lambda: tf.keras.layers.TimeDistributed(lambda x: x)),
    (
        "tapeviz.keras.layers.Bidirectional",
        ValueError,
        lambda: tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), merge_mode="max"),
    ),
    (
        "tapeviz.keras.layers.MultiHeadAttention",
        ValueError,
        lambda: tf.keras.layers.MultiHeadAttention(2, 4, attention_axes=(1,)),
    ),
    ("tapeviz.keras.layers.Attention", ValueError, lambda: tf.keras.layers.Attention(score_mode="cosine")),
    (
        "tapeviz.keras.layers.CenterCrop",
        ValueError,
        lambda: tf.keras.layers.CenterCrop(2, 2, data_format="channels_first"),
    ),
    (
        "tapeviz.keras.layers.CategoryEncoding",
        ValueError,
        lambda: tf.keras.layers.CategoryEncoding(3, output_mode="tf_idf"),
    ),
    ("tapeviz.keras.layers.GaussianDropout", ValueError, lambda: tf.keras.layers.GaussianDropout(2.0)),
    ("tapeviz.keras.layers.SpatialDropout1D", ValueError, lambda: tf.keras.layers.SpatialDropout1D(2.0)),
    ("tapeviz.keras.layers.SpatialDropout2D", ValueError, lambda: tf.keras.layers.SpatialDropout2D(2.0)),
    ("tapeviz.keras.layers.Permute", ValueError, lambda: tf.keras.layers.Permute((0, 1))),
    ("tapeviz.keras.losses.Loss", ValueError, lambda: tf.keras.losses.MeanSquaredError(reduction="max")),
    ("tapeviz.keras.metrics.Precision", ValueError, lambda: tf.keras.metrics.Precision(top_k=2)),
    ("tapeviz.keras.metrics.Recall", ValueError, lambda: tf.keras.metrics.Recall(class_id=1)),
    ("tapeviz.keras.metrics.R2Score", ValueError, lambda: tf.keras.metrics.R2Score(num_regressors=-1)),
    ("tapeviz.keras.metrics.AUC", ValueError, lambda: tf.keras.metrics.AUC(curve="DET")),
    ("tapeviz.keras.metrics.FBetaScore", ValueError, lambda: tf.keras.metrics.FBetaScore(beta=0.0)),
    ("tapeviz.keras.metrics.IoU", ValueError, lambda: tf.keras.metrics.IoU(num_classes=2, target_class_ids=[5])),
    ("tapeviz.keras.optimizers.Optimizer", ValueError, lambda: tf.keras.optimizers.SGD(lr=0.1)),
    ("tapeviz.keras.optimizers.AdamW", ValueError, lambda: tf.keras.optimizers.AdamW(weight_decay=None)),
    ("tapeviz.keras.optimizers.Lion", ValueError, lambda: tf.keras.optimizers.Lion(beta_1=2.0)),
    ("tapeviz.keras.optimizers.LossScaleOptimizer", ValueError, lambda: tf.keras.optimizers.LossScaleOptimizer("sgd")),
    (
        "tapeviz.keras.optimizers.schedules.ExponentialDecay",
        ValueError,
        lambda: tf.keras.optimizers.schedules.ExponentialDecay(0.1, 0, 0.5),
    ),
    (
        "tapeviz.keras.optimizers.schedules.PiecewiseConstantDecay",
        ValueError,
        lambda: tf.keras.optimizers.schedules.PiecewiseConstantDecay([10], [1.0]),
    ),
    (
        "tapeviz.keras.initializers.VarianceScaling",
        ValueError,
        lambda: tf.keras.initializers.VarianceScaling(mode="fan_max"),
    ),
    ("tapeviz.keras.callbacks.ModelCheckpoint", ValueError, lambda: tf.keras.callbacks.ModelCheckpoint("model.h6")),
    ("tapeviz.keras.callbacks.ReduceLROnPlateau", ValueError, lambda: tf.keras.callbacks.ReduceLROnPlateau(factor=1.5)),
    ("tapeviz.keras.callbacks.BackupAndRestore", ValueError, lambda: tf.keras.callbacks.BackupAndRestore("")),
    (
        "tapeviz.keras.metrics.MeanAbsoluteError",
        TypeError,
        lambda: tf.keras.metrics.MeanAbsoluteError(no_such_option=1),
    ),
    (
        "tapeviz.keras.metrics.MeanAbsolutePercentageError",
        TypeError,
        lambda: tf.keras.metrics.MeanAbsolutePercentageError(no_such_option=1),
    ),
    (
        "tapeviz.keras.metrics.MeanSquaredLogarithmicError",
        TypeError,
        lambda: tf.keras.metrics.MeanSquaredLogarithmicError(no_such_option=1),
    ),
    ("tapeviz.keras.metrics.LogCoshError", TypeError, lambda: tf.keras.metrics.LogCoshError(no_such_option=1)),
    (
        "tapeviz.keras.metrics.BinaryCrossentropy",
        TypeError,
        lambda: tf.keras.metrics.BinaryCrossentropy(no_such_option=1),
    ),
    (
        "tapeviz.keras.metrics.CategoricalCrossentropy",
        TypeError,
        lambda: tf.keras.metrics.CategoricalCrossentropy(no_such_option=1),
    ),
    (
        "tapeviz.keras.metrics.SparseCategoricalCrossentropy",
        TypeError,
        lambda: tf.keras.metrics.SparseCategoricalCrossentropy(no_such_option=1),
    ),
    ("tapeviz.keras.metrics.KLDivergence", TypeError, lambda: tf.keras.metrics.KLDivergence(no_such_option=1)),
    ("tapeviz.keras.metrics.Poisson", TypeError, lambda: tf.keras.metrics.Poisson(no_such_option=1)),
    ("tapeviz.keras.metrics.Hinge", TypeError, lambda: tf.keras.metrics.Hinge(no_such_option=1)),
    ("tapeviz.keras.metrics.SquaredHinge", TypeError, lambda: tf.keras.metrics.SquaredHinge(no_such_option=1)),
    ("tapeviz.keras.metrics.CategoricalHinge", TypeError, lambda: tf.keras.metrics.CategoricalHinge(no_such_option=1)),
    ("tapeviz.random.categorical", ValueError, lambda: tf.random.categorical([0.0, 1.0], 2)),
    (
        "tapeviz.random.stateless_categorical",
        errors.InvalidArgumentError,
        lambda: tf.random.stateless_categorical([0.0, 1.0], 2, seed=[1, 2]),
    ),
    ("tapeviz.random.shuffle", ValueError, lambda: tf.random.shuffle(tf.constant(1.0))),
    (
        "tapeviz.random.Generator",
        ValueError,
        lambda: tf.random.Generator(copy_from=tf.random.Generator.from_seed(1), alg="philox"),
    ),
    ("tapeviz.random.Generator", TypeError, lambda: tf.random.Generator(copy_from=3)),
    (
        "tapeviz.random.Generator.uniform",
        ValueError,
        lambda: tf.random.Generator.from_seed(1).uniform([2], maxval=5, dtype=tf.int32, minval=None),
    ),
    (
        "tapeviz.random.Generator.uniform",
        TypeError,
        lambda: tf.random.Generator.from_seed(1).uniform([2], dtype=tf.bool),
    ),
    ("tapeviz.random.set_global_generator", TypeError, lambda: tf.random.set_global_generator(3)),
    (
        "tapeviz.random.stateless_uniform",
        ValueError,
        lambda: tf.random.stateless_uniform([2], [1, 2], maxval=5, dtype=tf.int32, minval=None),
    ),
    ("tapeviz.random.stateless_uniform", TypeError, lambda: tf.random.stateless_uniform([2], [1, 2], dtype=tf.bool)),
    ("tapeviz.image.resize", ValueError, lambda: tf.image.resize(tf.zeros([2, 2, 1]), [4, 4], method="fancy")),
    (
        "tapeviz.image.resize",
        NotImplementedError,
        lambda: tf.image.resize(tf.zeros([2, 2, 1]), [4, 4], method="bicubic"),
    ),
    ("tapeviz.image.resize_with_pad", ValueError, lambda: tf.image.resize_with_pad(tf.zeros([2, 2, 1]), 0, 4)),
    (
        "tapeviz.image.pad_to_bounding_box",
        ValueError,
        lambda: tf.image.pad_to_bounding_box(tf.zeros([2, 2, 1]), -1, 0, 4, 4),
    ),
    ("tapeviz.image.adjust_contrast", ValueError, lambda: tf.image.adjust_contrast(tf.zeros([2, 2]), 2.0)),
    ("tapeviz.image.rgb_to_grayscale", ValueError, lambda: tf.image.rgb_to_grayscale(tf.zeros([2, 2, 2]))),
    ("tapeviz.image.grayscale_to_rgb", ValueError, lambda: tf.image.grayscale_to_rgb(tf.zeros([2, 2, 2]))),
    (
        "tapeviz.image.convert_image_dtype",
        AttributeError,
        lambda: tf.image.convert_image_dtype(tf.zeros([2, 2, 1]), tf.bool),
    ),
    (
        "tapeviz.nn.conv3d",
        ValueError,
        lambda: tf.nn.conv3d(tf.ones([1, 2, 2, 2, 1]), tf.ones([1, 1, 1, 1, 1]), [1] * 5, "VALID", data_format="NCDHW"),
    ),
    (
        "tapeviz.nn.sparse_softmax_cross_entropy_with_logits",
        TypeError,
        lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.5], logits=[[0.0, 0.0]]),
    ),
    (
        "tapeviz.nn.sparse_softmax_cross_entropy_with_logits",
        errors.InvalidArgumentError,
        lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[5], logits=[[0.0, 0.0]]),
    ),
    ("tapeviz.nn.dropout", ValueError, lambda: tf.nn.dropout(tf.ones([2]), rate=1.5)),
    ("tapeviz.nn.bias_add", ValueError, lambda: tf.nn.bias_add(tf.ones([2, 2]), tf.ones([2, 2]))),
    ("tapeviz.nn.bias_add", errors.InvalidArgumentError, lambda: tf.nn.bias_add(tf.ones([2, 2]), tf.ones([3]))),
    (
        "tapeviz.nn.max_pool2d",
        ValueError,
        lambda: tf.nn.max_pool2d(tf.ones([1, 2, 2, 1]), 2, 2, "VALID", data_format="NCHW"),
    ),
    (
        "tapeviz.nn.avg_pool2d",
        ValueError,
        lambda: tf.nn.avg_pool2d(tf.ones([1, 2, 2, 1]), 2, 2, "VALID", data_format="NCHW"),
    ),
    (
        "tapeviz.nn.conv2d_transpose",
        ValueError,
        lambda: tf.nn.conv2d_transpose(tf.ones([1, 2, 2]), tf.ones([1, 1, 1, 1]), [1, 2, 2, 1], 1),
    ),
    ("tapeviz.nn.conv1d", ValueError, lambda: tf.nn.conv1d(tf.ones([1, 4]), tf.ones([1, 1, 1]), 1, "VALID")),
    (
        "tapeviz.nn.convolution",
        ValueError,
        lambda: tf.nn.convolution(tf.ones([1, 2, 2, 2, 1]), tf.ones([1, 1, 1, 1, 1])),
    ),
    ("tapeviz.linalg.band_part", errors.InvalidArgumentError, lambda: tf.linalg.band_part(tf.ones([3]), 0, 0)),
    ("tapeviz.linalg.diag", errors.InvalidArgumentError, lambda: tf.linalg.diag(tf.constant(1.0))),
    ("tapeviz.linalg.diag_part", errors.InvalidArgumentError, lambda: tf.linalg.diag_part(tf.ones([3]))),
    ("tapeviz.linalg.matrix_transpose", ValueError, lambda: tf.linalg.matrix_transpose(tf.ones([3]))),
    ("tapeviz.linalg.matvec", ValueError, lambda: tf.linalg.matvec(tf.ones([2, 2]), tf.constant(1.0))),
    ("tapeviz.linalg.solve", errors.InvalidArgumentError, lambda: tf.linalg.solve(tf.zeros([2, 2]), tf.ones([2, 1]))),
    (
        "tapeviz.linalg.triangular_solve",
        errors.InvalidArgumentError,
        lambda: tf.linalg.triangular_solve(tf.ones([2, 3]), tf.ones([2, 1])),
    ),
    ("tapeviz.debugging.assert_integer", TypeError, lambda: tf.debugging.assert_integer(tf.ones([2]))),
    ("tapeviz.debugging.assert_type", TypeError, lambda: tf.debugging.assert_type(tf.ones([2]), tf.int32)),
    ("tapeviz.debugging.assert_scalar", ValueError, lambda: tf.debugging.assert_scalar(tf.ones([2]))),
    ("tapeviz.debugging.assert_rank_at_least", ValueError, lambda: tf.debugging.assert_rank_at_least(tf.ones([2]), 2)),
    ("tapeviz.debugging.assert_rank_in", ValueError, lambda: tf.debugging.assert_rank_in(tf.ones([2]), [0, 2])),
    ("tapeviz.debugging.assert_proper_iterable", TypeError, lambda: tf.debugging.assert_proper_iterable("abc")),
    (
        "tapeviz.debugging.assert_same_float_dtype",
        ValueError,
        lambda: tf.debugging.assert_same_float_dtype([tf.ones([1]), tf.ones([1], tf.float64)]),
    ),
    ("tapeviz.nest.sorted_keys", TypeError, lambda: tf.nest.sorted_keys({1: "a", "b": 2})),
    ("tapeviz.add_n", ValueError, lambda: tf.add_n([])),
    ("tapeviz.add_n", errors.InvalidArgumentError, lambda: tf.add_n([[True], [False]])),
    ("tapeviz.as_dtype", TypeError, lambda: tf.as_dtype("float7")),
    ("tapeviz.assert_rank", ValueError, lambda: tf.debugging.assert_rank(tf.zeros([2]), 2)),
    ("tapeviz.batch_to_space", ValueError, lambda: tf.batch_to_space(tf.zeros([3, 1, 1]), [2], [[0, 0]])),
    ("tapeviz.space_to_batch_nd", ValueError, lambda: tf.space_to_batch_nd(tf.zeros([1, 3, 1]), [2], [[0, 0]])),
    (
        "tapeviz.broadcast_static_shape",
        ValueError,
        lambda: tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3])),
    ),
    ("tapeviz.broadcast_dynamic_shape", errors.InvalidArgumentError, lambda: tf.broadcast_dynamic_shape([2], [3])),
    ("tapeviz.case", ValueError, lambda: tf.case([])),
    ("tapeviz.case", TypeError, lambda: tf.case([tf.constant(True)])),
    ("tapeviz.cond", TypeError, lambda: tf.cond(True, 1, 2)),
    ("tapeviz.switch_case", ValueError, lambda: tf.switch_case(0, [])),
    ("tapeviz.while_loop", TypeError, lambda: tf.while_loop(True, lambda i: i, (0,))),
    ("tapeviz.global_norm", ValueError, lambda: tf.linalg.global_norm([None])),
    ("tapeviz.global_norm", TypeError, lambda: tf.linalg.global_norm(tf.ones([2]))),
    ("tapeviz.complex", errors.InvalidArgumentError, lambda: tf.complex(tf.ones([2]), tf.ones([2], tf.float64))),
    ("tapeviz.cumsum", errors.InvalidArgumentError, lambda: tf.cumsum([True, False])),
    ("tapeviz.cumprod", errors.InvalidArgumentError, lambda: tf.math.cumprod([True, False])),
    ("tapeviz.device", TypeError, lambda: tf.device(0).__enter__()),
    ("tapeviz.dynamic_partition", ValueError, lambda: tf.dynamic_partition([1, 2], [[0]], 2)),
    ("tapeviz.dynamic_partition", errors.InvalidArgumentError, lambda: tf.dynamic_partition([1, 2], [0, 5], 2)),
    ("tapeviz.dynamic_stitch", TypeError, lambda: tf.dynamic_stitch([[0.5]], [[1.0]])),
    ("tapeviz.dynamic_stitch", ValueError, lambda: tf.dynamic_stitch([[0], [1]], [[1.0]])),
    ("tapeviz.einsum", ValueError, lambda: tf.einsum("i->")),
    ("tapeviz.einsum", errors.InvalidArgumentError, lambda: tf.einsum("i,i->", tf.ones([2]), tf.ones([3]))),
    ("tapeviz.ensure_shape", errors.InvalidArgumentError, lambda: tf.ensure_shape(tf.ones([2]), [3])),
    ("tapeviz.gradients", RuntimeError, lambda: tf.gradients(tf.ones([1]), tf.ones([1]))),
    ("tapeviz.hessians", RuntimeError, lambda: tf.hessians(tf.ones([1]), tf.ones([1]))),
    ("tapeviz.histogram_fixed_width_bins", ValueError, lambda: tf.histogram_fixed_width_bins([1.0], [0.0, 1.0], 0)),
    ("tapeviz.no_gradient", TypeError, lambda: tf.no_gradient(3)),
    ("tapeviz.no_gradient", KeyError, lambda: tf.no_gradient("Relu")),
    ("tapeviz.norm", ValueError, lambda: tf.norm([1.0, 2.0], ord=-1)),
    ("tapeviz.parallel_stack", RuntimeError, lambda: tf.parallel_stack([1, 2])),
    ("tapeviz.reverse_sequence", ValueError, lambda: tf.reverse_sequence([[1, 2]], [1])),
    ("tapeviz.reverse_sequence", errors.InvalidArgumentError, lambda: tf.reverse_sequence([[1, 2]], [5], seq_axis=1)),
    ("tapeviz.scalar_mul", ValueError, lambda: tf.math.scalar_mul([1.0, 2.0], [1.0, 2.0])),
    ("tapeviz.tensordot", ValueError, lambda: tf.tensordot(tf.ones([2]), tf.ones([3]), 1)),
    ("tapeviz.truediv", TypeError, lambda: tf.truediv(tf.ones([2]), tf.ones([2], tf.float64))),
    ("tapeviz.unravel_index", errors.InvalidArgumentError, lambda: tf.unravel_index([7], [2, 3])),
    ("tapeviz.keras.Model", ValueError, lambda: tf.keras.Model(inputs=tf.keras.Input(shape=(2,)))),
    ("tapeviz.keras.Model.predict", ValueError, lambda: _compiled_model().predict(np.zeros((0, 2)), verbose=0)),
    ("tapeviz.keras.Model.train_on_batch", ValueError, lambda: _compiled_model().train_on_batch(*_data())),
    ("tapeviz.keras.Sequential.add", ValueError, lambda: _compiled_model().add(tf.keras.Input(shape=(1,)))),
    ("tapeviz.keras.Sequential.add", TypeError, lambda: tf.keras.Sequential().add(lambda x: x)),
    ("tapeviz.keras.Layer", ValueError, lambda: tf.keras.layers.Dense(1, no_such_option=1)),
    ("tapeviz.keras.Input", ValueError, lambda: tf.keras.Input()),
    ("tapeviz.keras.layers.Dropout", ValueError, lambda: tf.keras.layers.Dropout(1.5)),
    ("tapeviz.keras.optimizers.Optimizer.apply", ValueError, lambda: tf.keras.optimizers.SGD().apply([1.0])),
    ("tapeviz.keras.optimizers.Optimizer.apply", TypeError, lambda: tf.keras.optimizers.SGD().apply([1.0], [1.0])),
    ("tapeviz.Module", ValueError, lambda: tf.Module(name="not valid")),
    ("tapeviz.pad", errors.InvalidArgumentError, lambda: tf.pad([1, 2], [[-1, 0]])),
    ("tapeviz.pad", ValueError, lambda: tf.pad([1, 2], [[1, 0]], mode="WRAP")),
    ("tapeviz.reverse", errors.InvalidArgumentError, lambda: tf.reverse([[1, 2]], axis=[1, 1])),
    ("tapeviz.tile", errors.InvalidArgumentError, lambda: tf.tile([1, 2], [-1])),
    ("tapeviz.split", ValueError, lambda: tf.split(tf.constant(1.0), 2)),
    ("tapeviz.split", errors.InvalidArgumentError, lambda: tf.split(tf.range(5), 2)),
    ("tapeviz.unstack", ValueError, lambda: tf.unstack(tf.constant(1.0))),
    ("tapeviz.slice", errors.InvalidArgumentError, lambda: tf.slice([1, 2, 3], [2], [5])),
    ("tapeviz.gather_nd", ValueError, lambda: tf.gather_nd([[1, 2]], [[0]], batch_dims=5)),
    ("tapeviz.gather_nd", errors.InvalidArgumentError, lambda: tf.gather_nd([[1, 2]], [[3, 0]])),
    ("tapeviz.strided_slice", ValueError, lambda: tf.strided_slice([1, 2, 3], [0], [1, 2])),
    ("tapeviz.boolean_mask", ValueError, lambda: tf.boolean_mask([1, 2], True)),
    ("tapeviz.meshgrid", TypeError, lambda: tf.meshgrid([1, 2], [3], order="C")),
    ("tapeviz.meshgrid", ValueError, lambda: tf.meshgrid([1, 2], [3], indexing="ji")),
    ("tapeviz.repeat", errors.InvalidArgumentError, lambda: tf.repeat([1, 2], -1)),
    ("tapeviz.roll", errors.InvalidArgumentError, lambda: tf.roll([1, 2], shift=[1, 2], axis=[0])),
    ("tapeviz.top_k", errors.InvalidArgumentError, lambda: tf.math.top_k([1.0, 2.0], k=5)),
    ("tapeviz.searchsorted", ValueError, lambda: tf.searchsorted([1, 2], [1], side="middle")),
    ("tapeviz.searchsorted", errors.InvalidArgumentError, lambda: tf.searchsorted([[1, 2]], [[1], [2]])),
    ("tapeviz.searchsorted", TypeError, lambda: tf.searchsorted([1, 2], [1], out_type=tf.float32)),
    (
        "tapeviz.keras.optimizers.Optimizer.apply_gradients",
        TypeError,
        lambda: tf.keras.optimizers.SGD().apply_gradients([tf.Variable(1.0)]),
    ),
    (
        "tapeviz.keras.optimizers.Optimizer.apply_gradients",
        ValueError,
        lambda: tf.keras.optimizers.SGD().apply_gradients([(None, tf.Variable(1.0))]),
    ),
]


def _elementwise_cases():
    """The elementwise ops (made by one factory, with one Raises entry): the bad input each documents."""
    cases = []
    for name, obj, _ in OBJECTS:
        if getattr(obj, "primitive", None) is None or "InvalidArgumentError" not in raised_names(inspect.getdoc(obj)):
            continue
        parameters = list(inspect.signature(obj).parameters)
        if parameters == ["x", "y", "name"]:  # shapes that do not broadcast
            cases.append((name, errors.InvalidArgumentError, lambda op=obj: op(tf.ones([2]), tf.ones([3]))))
        elif parameters == ["x", "name"]:  # an integer tensor to a float-only op
            cases.append((name, errors.InvalidArgumentError, lambda op=obj: op(tf.constant([1, 2]))))
        elif parameters == ["input_tensor", "axis", "keepdims", "name"]:  # a reduction of bools
            cases.append((name, errors.InvalidArgumentError, lambda op=obj: op(tf.constant([True, False]))))
    for name, obj, _ in OBJECTS:  # the reductions: an axis the input does not have
        if getattr(obj, "primitive", None) is None or "ValueError" not in raised_names(inspect.getdoc(obj)):
            continue
        if list(inspect.signature(obj).parameters) == ["input_tensor", "axis", "keepdims", "name"]:
            cases.append((name, ValueError, lambda op=obj: op(tf.ones([2]), axis=3)))
    return cases


CASES += _elementwise_cases()
CASES += [  # string tensors
    ("tapeviz.as_string", TypeError, lambda: tf.as_string(tf.constant("already text"))),
    ("tapeviz.cast", errors.UnimplementedError, lambda: tf.cast(tf.constant("1"), tf.float32)),
    ("tapeviz.io.decode_raw", errors.InvalidArgumentError, lambda: tf.io.decode_raw(["ab", "c"], tf.uint8)),
    ("tapeviz.strings.format", errors.InvalidArgumentError, lambda: tf.strings.format("{} {}", [1])),
    ("tapeviz.strings.join", errors.InvalidArgumentError, lambda: tf.strings.join([["a", "b"], ["c", "d", "e"]])),
    ("tapeviz.strings.length", ValueError, lambda: tf.strings.length("a", unit="WORD")),
    ("tapeviz.strings.regex_full_match", errors.InvalidArgumentError, lambda: tf.strings.regex_full_match("a", "(")),
    ("tapeviz.strings.regex_replace", errors.InvalidArgumentError, lambda: tf.strings.regex_replace("a", "(", "")),
    ("tapeviz.strings.substr", errors.InvalidArgumentError, lambda: tf.strings.substr("abc", 5, 1)),
    ("tapeviz.strings.to_number", errors.InvalidArgumentError, lambda: tf.strings.to_number("one")),
    (
        "tapeviz.strings.to_hash_bucket_fast",
        errors.InvalidArgumentError,
        lambda: tf.strings.to_hash_bucket_fast("a", 0),
    ),
    *(
        (f"tapeviz.strings.{name}", errors.InvalidArgumentError, lambda op=op: op("a", "UTF-7"))
        for name, op in [
            ("unicode_decode", lambda x, e: tf.strings.unicode_decode(x, e)),
            ("unicode_decode_with_offsets", lambda x, e: tf.strings.unicode_decode_with_offsets(x, e)),
            ("unicode_split", lambda x, e: tf.strings.unicode_split(x, e)),
            ("unicode_transcode", lambda x, e: tf.strings.unicode_transcode(x, "UTF-8", e)),
            ("unicode_encode", lambda x, e: tf.strings.unicode_encode([65], e)),
        ]
    ),
    # every op that takes strings refuses numbers with a TypeError that names the fix
    ("tapeviz.io.decode_raw", TypeError, lambda: tf.io.decode_raw([1.0], tf.uint8)),
    *(
        (f"tapeviz.strings.{name}", TypeError, lambda name=name, extra=extra: getattr(tf.strings, name)([1.0], *extra))
        for name, extra in [
            ("bytes_split", ()),
            ("length", ()),
            ("lower", ()),
            ("upper", ()),
            ("strip", ()),
            ("split", ()),
            ("reduce_join", ()),
            ("regex_full_match", ("a",)),
            ("regex_replace", ("a", "b")),
            ("substr", (0, 1)),
            ("to_number", ()),
            ("to_hash_bucket_fast", (3,)),
            ("unicode_decode", ("UTF-8",)),
            ("unicode_decode_with_offsets", ("UTF-8",)),
            ("unicode_split", ("UTF-8",)),
            ("unicode_transcode", ("UTF-8", "UTF-8")),
        ]
    ),
    ("tapeviz.strings.join", TypeError, lambda: tf.strings.join([["a"], [1.0]])),
]


def _mixed_strategy_scopes():
    with tf.distribute.MirroredStrategy(["cpu:0"]).scope(), tf.distribute.OneDeviceStrategy("/cpu:0").scope():
        pass


def _virtual_devices_after_initialization():
    tf.config.list_logical_devices()  # as TF: listing the devices starts them
    cpu = tf.config.list_physical_devices("CPU")[0]
    configured = tf.config.get_logical_device_configuration(cpu) or []
    tf.config.experimental.set_virtual_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * (len(configured) + 2)
    )


def _iterator_past_its_end():
    iterator = iter(tf.distribute.get_strategy().experimental_distribute_dataset(tf.data.Dataset.range(0).batch(2)))
    iterator.get_next()


# tf.distribute and the logical devices (three devices by name: none needs to exist to raise)
CASES += [
    (
        "tapeviz.config.experimental.get_virtual_device_configuration",
        ValueError,
        lambda: tf.config.experimental.get_virtual_device_configuration("cpu"),
    ),
    (
        "tapeviz.config.experimental.set_virtual_device_configuration",
        ValueError,
        lambda: tf.config.experimental.set_virtual_device_configuration("cpu", []),
    ),
    (
        "tapeviz.config.experimental.set_virtual_device_configuration",
        RuntimeError,
        _virtual_devices_after_initialization,
    ),
    ("tapeviz.distribute.DistributedIterator.get_next", StopIteration, _iterator_past_its_end),
    (
        "tapeviz.distribute.InputContext.get_per_replica_batch_size",
        ValueError,
        lambda: tf.distribute.InputContext(1, 0, 4).get_per_replica_batch_size(6),
    ),
    ("tapeviz.distribute.MirroredStrategy", ValueError, lambda: tf.distribute.MirroredStrategy(devices=[])),
    ("tapeviz.distribute.OneDeviceStrategy", ValueError, lambda: tf.distribute.OneDeviceStrategy("tpu:0")),
    ("tapeviz.distribute.StrategyExtended", ValueError, lambda: tf.distribute.StrategyExtended(None, ["tpu:0"])),
    (
        "tapeviz.distribute.ReplicaContext.all_reduce",
        ValueError,
        lambda: tf.distribute.get_replica_context().all_reduce("MAX", 1.0),
    ),
    (
        "tapeviz.distribute.ReplicaContext.made_by_first_replica",
        ValueError,
        lambda: tf.distribute.ReplicaContext(tf.distribute.get_strategy(), 1).made_by_first_replica(),
    ),
    (
        "tapeviz.distribute.Strategy.reduce",
        ValueError,
        lambda: tf.distribute.MirroredStrategy(["cpu:0", "cpu:1"]).reduce("SUM", tf.constant(1.0), axis=None),
    ),
    ("tapeviz.distribute.Strategy.scope", RuntimeError, _mixed_strategy_scopes),
    ("tapeviz.nn.compute_average_loss", ValueError, lambda: tf.nn.compute_average_loss(tf.constant(1.0))),
    ("tapeviz.nn.compute_average_loss", RuntimeError, lambda: _in_a_scope(tf.nn.compute_average_loss, [1.0])),
    ("tapeviz.nn.scale_regularization_loss", RuntimeError, lambda: _in_a_scope(tf.nn.scale_regularization_loss, 1.0)),
]


def _in_a_scope(fn, value):
    with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
        fn(value)


def _summary(tmp_path, write, step=0):
    """Run ``write()`` inside a new file writer's ``as_default(step)`` (None: no step)."""
    writer = tf.summary.create_file_writer(str(tmp_path / "logs"))
    try:
        with writer.as_default(step=step):
            write()
    finally:
        writer.close()


def _closed_writer(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path / "logs"))
    writer.close()
    return writer


def _trace_export_without_a_step(tmp_path):
    tf.summary.trace_on(graph=True)
    _summary(tmp_path, lambda: tf.summary.trace_export("graph"), step=None)


CASES += [
    (
        "tapeviz.summary.SummaryWriter.as_default",
        RuntimeError,
        lambda tmp_path: _closed_writer(tmp_path).as_default().__enter__(),
    ),
    (
        "tapeviz.summary.SummaryWriter.set_as_default",
        RuntimeError,
        lambda tmp_path: _closed_writer(tmp_path).set_as_default(),
    ),
    (
        "tapeviz.summary.scalar",
        ValueError,
        lambda tmp_path: _summary(tmp_path, lambda: tf.summary.scalar("x", 1.0), None),
    ),
    (
        "tapeviz.summary.histogram",
        ValueError,
        lambda tmp_path: _summary(tmp_path, lambda: tf.summary.histogram("h", [1.0]), None),
    ),
    ("tapeviz.summary.text", ValueError, lambda tmp_path: _summary(tmp_path, lambda: tf.summary.text("t", "a"), None)),
    ("tapeviz.summary.text", TypeError, lambda tmp_path: _summary(tmp_path, lambda: tf.summary.text("t", [1.0, 2.0]))),
    (
        "tapeviz.summary.image",
        ValueError,
        lambda tmp_path: _summary(tmp_path, lambda: tf.summary.image("i", np.zeros((2, 2)))),
    ),
    (
        "tapeviz.summary.image",
        TypeError,
        lambda tmp_path: _summary(tmp_path, lambda: tf.summary.image("i", np.zeros((1, 2, 2, 1), np.int32))),
    ),
    (
        "tapeviz.summary.write",
        ValueError,
        lambda tmp_path: _summary(tmp_path, lambda: tf.summary.write("w", [1.0]), None),
    ),
    (
        "tapeviz.summary.write",
        TypeError,
        lambda tmp_path: _summary(tmp_path, lambda: tf.summary.write("w", np.array([1], np.uint8))),
    ),
    ("tapeviz.summary.trace_export", ValueError, _trace_export_without_a_step),
    ("tapeviz.keras.utils.get_file", ValueError, lambda: tf.keras.utils.get_file("a.npz")),
    (
        "tapeviz.keras.utils.get_file",
        FileNotFoundError,
        lambda tmp_path: tf.keras.utils.get_file("a.npz", "https://example.invalid/a.npz", cache_dir=str(tmp_path)),
    ),
]

CASES += [  # tf.math's additions of 2026-11-29
    ("tapeviz.math.accumulate_n", ValueError, lambda: tf.math.accumulate_n([])),
    ("tapeviz.math.accumulate_n", TypeError, lambda: tf.math.accumulate_n([[1.0]], tensor_dtype=tf.float64)),
    ("tapeviz.math.cumulative_logsumexp", tf.errors.InvalidArgumentError, lambda: tf.math.cumulative_logsumexp([1, 2])),
    ("tapeviz.math.invert_permutation", tf.errors.InvalidArgumentError, lambda: tf.math.invert_permutation([0, 0])),
    ("tapeviz.math.is_non_decreasing", TypeError, lambda: tf.math.is_non_decreasing(["a", "b"])),
    ("tapeviz.math.is_strictly_increasing", TypeError, lambda: tf.math.is_strictly_increasing(["a", "b"])),
    ("tapeviz.math.logical_xor", TypeError, lambda: tf.math.logical_xor([1.0], [0.0])),
    ("tapeviz.math.multiply_no_nan", tf.errors.InvalidArgumentError, lambda: tf.math.multiply_no_nan([1], [2])),
    (
        "tapeviz.math.multiply_no_nan",
        ValueError,
        lambda: tf.math.multiply_no_nan(tf.constant([1.0]), tf.constant([2.0], tf.float64)),
    ),
    ("tapeviz.math.polyval", ValueError, lambda: tf.math.polyval(tf.constant([1.0, 2.0]), 2.0)),
    ("tapeviz.math.reciprocal_no_nan", tf.errors.InvalidArgumentError, lambda: tf.math.reciprocal_no_nan([1, 2])),
    ("tapeviz.math.rint", tf.errors.InvalidArgumentError, lambda: tf.math.rint([1, 2])),
    ("tapeviz.math.softsign", tf.errors.InvalidArgumentError, lambda: tf.math.softsign([1, 2])),
    ("tapeviz.math.xlog1py", tf.errors.InvalidArgumentError, lambda: tf.math.xlog1py([1], [2])),
    ("tapeviz.math.xlog1py", ValueError, lambda: tf.math.xlog1py(tf.constant([1.0]), tf.constant([2.0], tf.float64))),
]

# Raises the table cannot provoke in a test process, each with the reason.
UNTESTABLE = {
    ("tapeviz.keras.callbacks.TensorBoard", "ImportError"): "needs the tensorboard package absent",
    ("tapeviz.summary.create_file_writer", "ImportError"): "needs the tensorboard package absent",
    ("tapeviz.backend.use", "ImportError"): "where CuPy is installed the call would switch this process's backend",
    ("tapeviz.keras.utils.array_to_img", "ImportError"): "needs Pillow absent",
    ("tapeviz.keras.datasets.imdb.load_data", "ValueError"): "needs Keras's cached imdb.npz (never downloaded)",
}


def _id(case):
    return f"{case[0]}-{case[1].__name__}"


@pytest.mark.parametrize("name, exception, call", CASES, ids=[_id(c) for c in CASES])
def test_a_documented_raise_happens(name, exception, call, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    arguments = {"tmp_path": tmp_path} if "tmp_path" in inspect.signature(call).parameters else {}
    with pytest.raises(exception):
        call(**arguments)


def _documented():
    return {(name, raised) for name, obj, _ in OBJECTS for raised in raised_names(inspect.getdoc(obj))}


def test_every_documented_raise_has_a_case():
    cased = {(name, exception.__name__) for name, exception, _ in CASES} | set(UNTESTABLE)
    uncased = sorted(_documented() - cased)
    assert not uncased, f"Raises entries with no case in CASES: {uncased}"


def test_every_case_is_a_documented_raise():
    stale = sorted({(name, exception.__name__) for name, exception, _ in CASES} - _documented())
    stale += sorted(set(UNTESTABLE) - _documented())
    assert not stale, f"cases for raises no docstring lists (fix the docstring or the case): {stale}"


def test_the_table_reads_the_raises_entries():
    doc = """Summary.

    Raises:
        ValueError: one thing,
            said on two lines.
        tf.errors.InvalidArgumentError: another.
    """
    assert raised_names(inspect.cleandoc(doc)) == ["ValueError", "InvalidArgumentError"]
