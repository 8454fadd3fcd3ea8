"""TF 2.21 behaviour of tf.train.Checkpoint and CheckpointManager behind tests/checkpoint/test_checkpoint.py.

``scenario(tf, folder)`` runs the same code on TensorFlow or on tapeviz and
returns what it observed (values, paths, messages) as plain data. Run with
TensorFlow installed to refresh the reference file:

    python tests/tf_reference/checkpoint_reference.py   # writes checkpoint_values.json

The test runs ``scenario(tapeviz, tmp_path)`` and compares with that file.
Checkpoint keys are compared for tf.Module trees only: Keras 3's internal
attribute names (``_kernel``, ``_functional/_operations``) are not tapeviz's.
"""

import json
import os

import numpy as np

VALUES_FILE = os.path.join(os.path.dirname(__file__), "checkpoint_values.json")


def _round(x):
    return np.round(np.asarray(x, dtype=np.float64), 6).tolist()


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (the reference records whatever TF raises)
        return [type(exc).__name__, str(exc).splitlines()[0]]
    return None


def _guide(tf, folder, out):
    """The checkpoint guide's loop: a subclassed Keras model, Adam, a step variable, a manager."""

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.l1 = tf.keras.layers.Dense(5)

        def call(self, x):
            return self.l1(x)

    x = tf.constant(np.arange(10, dtype=np.float32).reshape(2, 5) / 10)
    y = tf.constant(np.arange(10, dtype=np.float32).reshape(2, 5)[::-1] / 5)

    def train_step(net, opt):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.abs(net(x) - y))
        grads = tape.gradient(loss, net.trainable_variables)
        opt.apply_gradients(zip(grads, net.trainable_variables))
        return float(loss.numpy())

    net = Net()
    net(x)
    net.l1.kernel.assign(np.linspace(-1, 1, 25, dtype=np.float32).reshape(5, 5))
    opt = tf.keras.optimizers.Adam(0.1)
    ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(folder, "tf_ckpts"), max_to_keep=3)
    out["fresh_restore"] = ckpt.restore(manager.latest_checkpoint).__class__.__name__
    losses, saved = [], []
    for _ in range(10):
        losses.append(train_step(net, opt))
        ckpt.step.assign_add(1)
        if int(ckpt.step) % 2 == 0:
            saved.append(os.path.relpath(manager.save(), folder))
    out["guide_losses"] = _round(losses)
    out["guide_saved"] = saved
    out["guide_kept"] = [os.path.relpath(p, folder) for p in manager.checkpoints]
    out["guide_files"] = sorted(os.listdir(os.path.join(folder, "tf_ckpts")))
    out["guide_latest"] = os.path.relpath(tf.train.latest_checkpoint(os.path.join(folder, "tf_ckpts")), folder)
    out["guide_kernel"] = _round(net.l1.kernel.numpy())
    out["guide_step"] = int(ckpt.step.numpy())

    # A new program restores before its model is built or its optimizer has slots: deferred restoration.
    net2, opt2 = Net(), tf.keras.optimizers.Adam(0.1)
    ckpt2 = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt2, net=net2)
    status = ckpt2.restore(manager.latest_checkpoint)
    out["restored_step"] = int(ckpt2.step.numpy())
    out["restored_iterations"] = int(opt2.iterations.numpy())
    out["existing_matched"] = _error(status.assert_existing_objects_matched)
    net2(x)  # builds the layer: its kernel takes the saved value now
    out["deferred_kernel"] = _round(net2.l1.kernel.numpy())
    out["next_loss"] = train_step(net2, opt2)  # Adam's slots are created, then restored, then used
    out["next_kernel"] = _round(net2.l1.kernel.numpy())
    out["consumed_after_training"] = _error(status.assert_consumed)
    out["reference_next_loss"] = train_step(net, opt)
    out["reference_next_kernel"] = _round(net.l1.kernel.numpy())


def _modules(tf, folder, out):
    class Leaf(tf.Module):
        def __init__(self, scale):
            super().__init__()
            self.w = tf.Variable(np.full((2, 3), scale, dtype=np.float32))

    class Tree(tf.Module):
        def __init__(self, scale):
            super().__init__()
            self.v = tf.Variable([1.0 * scale, 2.0 * scale])
            self.parts = [Leaf(scale), {"a": tf.Variable(4.0 * scale), "b.c": Leaf(-scale)}]
            self.shared = self.parts[0]
            self.count = tf.Variable(int(scale), dtype=tf.int64)

    ckpt = tf.train.Checkpoint(tree=Tree(3.0), step=tf.Variable(5))
    first = ckpt.save(os.path.join(folder, "trees", "c"))
    second = ckpt.save(os.path.join(folder, "trees", "c"))
    out["save_paths"] = [os.path.relpath(first, folder), os.path.relpath(second, folder)]
    out["save_counter"] = int(ckpt.save_counter.numpy())
    written = ckpt.write(os.path.join(folder, "trees", "exact"))
    out["write_path"] = os.path.relpath(written, folder)
    out["save_counter_after_write"] = int(ckpt.save_counter.numpy())
    out["state_file"] = open(os.path.join(folder, "trees", "checkpoint")).read().splitlines()
    keys = [(k, s) for k, s in tf.train.list_variables(second) if k != "_CHECKPOINTABLE_OBJECT_GRAPH"]
    out["module_keys"] = keys
    out["load_variable"] = _round(tf.train.load_variable(second, "tree/v/.ATTRIBUTES/VARIABLE_VALUE"))

    other = tf.train.Checkpoint(tree=Tree(0.5), step=tf.Variable(0))
    other.restore(second).assert_consumed()
    t = other.tree
    out["module_restored"] = [
        _round(t.v.numpy()),
        _round(t.parts[0].w.numpy()),
        _round(t.parts[1]["a"].numpy()),
        _round(t.parts[1]["b.c"].w.numpy()),
        int(t.count.numpy()),
        int(other.step.numpy()),
        int(other.save_counter.numpy()),
    ]

    partial = tf.train.Checkpoint(tree=Tree(0.5))
    status = partial.restore(second)
    out["partial_consumed"] = _error(status.assert_consumed)
    out["partial_existing"] = _error(status.assert_existing_objects_matched)
    out["partial_expect"] = status.expect_partial() is status

    extra = tf.train.Checkpoint(tree=Tree(0.5), other=tf.Variable(1.0))
    out["extra_existing"] = _error(extra.restore(second).assert_existing_objects_matched)

    # Deferred: attributes set after restore get their values when set.
    root = tf.train.Checkpoint()
    status = root.restore(second)
    root.tree = tf.Module()
    root.tree.v = tf.Variable([0.0, 0.0])
    out["deferred_v"] = _round(root.tree.v.numpy())
    out["deferred_consumed"] = _error(status.assert_consumed)

    class Wrong(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable([1.0, 2.0, 3.0])

    out["shape_error"] = _error(lambda: tf.train.Checkpoint(tree=Wrong()).restore(second))
    out["not_trackable"] = _error(lambda: tf.train.Checkpoint(a=3))
    out["missing"] = _error(lambda: tf.train.Checkpoint().restore(os.path.join(folder, "trees", "c")))
    out["none_status"] = tf.train.Checkpoint().restore(None).__class__.__name__
    out["none_consumed"] = _error(tf.train.Checkpoint().restore(None).assert_consumed)
    out["no_latest"] = tf.train.latest_checkpoint(os.path.join(folder, "nowhere"))


def _manager(tf, folder, out):
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(step=step)
    directory = os.path.join(folder, "mg")
    manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    paths = []
    for _ in range(4):
        step.assign_add(1)
        paths.append(os.path.relpath(manager.save(), folder))
    out["manager_paths"] = paths
    out["manager_kept"] = [os.path.relpath(p, folder) for p in manager.checkpoints]
    out["manager_files"] = sorted(os.listdir(directory))
    out["manager_numbered"] = os.path.relpath(manager.save(checkpoint_number=10), folder)
    again = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
    out["manager_recovered"] = [os.path.relpath(p, folder) for p in again.checkpoints]
    interval = tf.train.CheckpointManager(
        ckpt, os.path.join(folder, "mi"), max_to_keep=5, step_counter=step, checkpoint_interval=3
    )
    saves = []
    for i in range(7):
        step.assign(i)
        path = interval.save()
        saves.append(None if path is None else os.path.relpath(path, folder))
    out["interval_saves"] = saves
    out["interval_error"] = _error(
        lambda: tf.train.CheckpointManager(ckpt, os.path.join(folder, "mj"), max_to_keep=5, checkpoint_interval=3)
    )
    empty = tf.train.CheckpointManager(ckpt, os.path.join(folder, "mk"), max_to_keep=None)
    out["empty_restore"] = [empty.restore_or_initialize(), empty.latest_checkpoint, empty.checkpoints]
    restored = tf.train.Checkpoint(step=tf.Variable(0, dtype=tf.int64))
    manager_restore = tf.train.CheckpointManager(restored, directory, max_to_keep=2)
    out["restore_or_initialize"] = os.path.relpath(manager_restore.restore_or_initialize(), folder)
    out["restored_manager_step"] = int(restored.step.numpy())


def scenario(tf, folder):
    """Everything observed, as JSON-ready data."""
    out = {}
    _guide(tf, folder, out)
    _modules(tf, folder, out)
    _manager(tf, folder, out)
    return out


if __name__ == "__main__":
    import tempfile

    import tensorflow

    with tempfile.TemporaryDirectory() as folder:
        result = scenario(tensorflow, folder)
    result["tensorflow_version"] = tensorflow.__version__
    with open(VALUES_FILE, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")
    print(json.dumps(result, indent=1, sort_keys=True))
