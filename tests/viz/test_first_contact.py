"""Issue 9, parts 1 and 2: a tape draws whatever was imported first; what the visualizer keeps is bounded in bytes."""

import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np

import tapeviz as tf
from tapeviz import viz
from tapeviz.viz import recorder


def _run(code):
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_tape_recorded_before_viz_was_imported_draws_its_ops():
    out = _run("""
        import sys
        import tapeviz as tf
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        print(tape.gradient(y, x).numpy())
        assert "tapeviz.viz" not in sys.modules, "the core imported the visualizer"
        bundle = tape._repr_mimebundle_()
        print(bundle["text/plain"])
        fig = tf.show(tape)
        print(len(fig.trace.ops), fig.trace.data["notes"][0][:40])
    """)
    assert "6.0" in out
    assert "Mul" in out
    assert "1 This tape released its values" in out


def test_a_persistent_tape_recorded_before_viz_keeps_its_values():
    out = _run("""
        import tapeviz as tf
        x = tf.constant(3.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, x)
        trace = tf.viz.trace_of(tape)
        print([op["name"] for op in trace.ops], trace.data["notes"])
        print(sorted(t["preview"] for t in trace.tensors.values()))
    """)
    assert "['Mul'] []" in out and "'9'" in out


def test_the_core_does_not_import_the_visualizer():
    out = _run("""
        import sys
        import tapeviz as tf
        with tf.GradientTape() as tape:
            pass
        repr(tape)
        print(sorted(m for m in sys.modules if m.startswith("tapeviz.viz")))
    """)
    assert out.strip() == "[]"


def test_a_released_tape_says_so_and_what_to_do():
    viz.stop_watching()
    try:
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * x)
        tape.gradient(y, x)
        assert tape.released and tape.recorded_ops == ()
        trace = viz.trace_of(tape)
        assert [op["name"] for op in trace.ops] == ["Mul", "Sum"]
        assert "persistent=True" in trace.data["notes"][0]
        assert {t["preview"] for t in trace.tensors.values() if t["kind"] == "computed"} == {"released"}
        assert [t["shape"] for t in trace.tensors.values()] == [[2], [2], []]
    finally:
        viz.watch_all()


def _structure(entries):
    """What a drawing needs of each entry: names, tensor ids, shapes, dtypes, scope, depth, index."""

    def tensor(t):
        kind = "variable" if isinstance(t, tf.Variable) else "tensor"
        return kind, tf.core.tensor.tensor_id(t), tuple(t.shape), t.dtype.name

    return [
        (e.primitive.name, [tensor(t) for t in e.inputs], [tensor(t) for t in e.outputs], e.scope, e.depth, e.index)
        for e in entries
    ]


def test_a_released_tape_keeps_the_structure_of_every_entry():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="v")
    x = tf.constant([0.5, -1.0])
    with tf.GradientTape(persistent=True) as inner:
        inner.watch(x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            with tf.name_scope("layer"):
                h = tf.linalg.matvec(v, x) * 2.0
            a, b = tf.unstack(h)  # several outputs
            y = a * b + tf.cast(tf.cast(h, tf.int32)[0], tf.float32) + 1.0  # an int output, a constant
        tape.gradient(y, x)
    assert tape.recorded_ops == () and tape.released
    kept = _structure(tape.history)
    names = [name for name, *_ in kept]
    assert "ReadVariableOp" in names and "Unpack" in names and "Cast" in names
    assert any(t[3] == "int32" for *_, outputs, _s, _d, _i in kept for t in outputs)
    assert kept[0][1][0][0] == "variable" and tape.history[0].inputs[0] is v  # the user's variable itself
    assert any(scope == "layer" for *_, scope, _depth, _index in kept)
    assert [index for *_, index in kept] == sorted(index for *_, index in kept)
    # The same structure as the entries had while live (the persistent tape still holds them).
    by_index = {e.index: e for e in inner.recorded_ops}
    assert kept == _structure([by_index[index] for *_, index in kept])


def test_sketches_hold_no_arrays():
    x = tf.constant(np.ones((256, 256), dtype=np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x * x)
    tape.gradient(y, x)
    for entry in tape.history:
        for t in entry.inputs + entry.outputs:
            assert not hasattr(t, "_value"), f"{entry.name} kept an array"


def _untaped_inference(steps, size):
    w = tf.constant(np.full((size, size), 0.001, dtype=np.float32))
    h = tf.constant(np.ones((1, size), dtype=np.float32))
    for _ in range(steps):
        h = tf.nn.relu(tf.matmul(tf.tile(h, [size // 4, 1])[:4], w))[:1]
    return h


def test_ops_outside_any_tape_keep_bytes_bounded():
    """300 ops on 4 MB tensors once kept 1.1 GiB alive; now the ring keeps small tensors only."""
    viz.watch_all()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        big = tf.constant(np.ones((1024, 1024), dtype=np.float32))  # 4 MB
        for _ in range(60):
            big = big * 1.0001
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert held < 20 * 2**20, f"the recorder kept {held / 2**20:.0f} MiB for 60 untaped ops on 4 MB tensors"
    assert recorder.SESSION.untaped_bytes <= recorder.SESSION.budget


def test_a_released_tape_frees_its_large_tensors_from_the_session_recorder():
    viz.watch_all()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        x = tf.Variable(np.ones((512, 512), dtype=np.float32))  # 1 MB
        with tf.GradientTape() as tape:
            h = x
            for _ in range(40):
                h = tf.sin(h)
            y = tf.reduce_sum(h)
        g = tape.gradient(y, x)
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    del h, y
    # x, g and the variable's read: about 3 MB. Without compaction: 80+ MB of activations and gradients.
    assert held < 12 * 2**20, f"{held / 2**20:.0f} MiB still held after a non-persistent tape was used"
    trace = viz.trace_of(tape)
    assert len(trace.ops) == 42 and len(trace.sweeps) == 1
    assert trace.sweeps[0]["results"][0].startswith("mean")
    del g


def test_the_untaped_budget_is_settable_and_checked():
    old = recorder.SESSION.budget
    try:
        recorder.set_budget(0)
        tf.constant([1.0, 2.0]) * 2.0
        assert recorder.SESSION.untaped_bytes == 0
    finally:
        recorder.set_budget(old)
    import pytest

    with pytest.raises(ValueError, match="bytes"):
        recorder.set_budget(-1)


def test_viz_imported_between_recording_and_gradient_shows_ops_and_the_sweep():
    out = _run("""
        import tapeviz as tf
        x = tf.constant(3.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
        import tapeviz.viz
        tape.gradient(y, x)
        trace = tf.viz.trace_of(tape)
        print([op["name"] for op in trace.ops], len(trace.sweeps), trace.sweeps[0]["results"])
    """)
    assert out.strip() == "['Mul'] 1 ['6']"


def _released_tape_of_large_values():
    x = tf.Variable(np.ones((64, 64), np.float32))  # 16 KiB
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.tanh(tf.matmul(x, x)))
    tape.gradient(y, x)
    return tape


def test_large_values_a_watched_tape_released_are_named_as_such():
    """Past the recorder's byte budget, a released tape's large values are summarised, and the picture says so."""
    viz.watch_all()
    old = recorder.SESSION.budget
    recorder.set_budget(0)
    try:
        tape = _released_tape_of_large_values()
    finally:
        recorder.set_budget(old)
    notes = viz.trace_of(tape).data["notes"]
    assert len(notes) == 1 and "larger than 1 KiB" in notes[0] and "import tapeviz.viz" not in notes[0]


def test_large_values_a_released_tape_held_are_drawn_while_the_budget_holds_them():
    viz.watch_all()
    tape = _released_tape_of_large_values()
    trace = viz.trace_of(tape)
    assert trace.data["notes"] == []
    matmul = next(op for op in trace.ops if op["name"] == "MatMul")
    assert trace.tensors[matmul["outputs"][0]]["preview"] == "mean 64, min 64, max 64"
    assert recorder.SESSION.held_bytes() <= recorder.SESSION.budget


_IPYTHON_SESSION = """
import os, sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
result = shell.run_cell('''
import sys
import tapeviz as tf
x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = x * x
dy_dx = tape.gradient(y, x)
print("recorder on:", "tapeviz.viz" in sys.modules and tf.viz.recorder.SESSION in tf.core.events.SUBSCRIBERS[0])
try:
    frames, _view = tf.viz.frames.sweep_frames(tf.viz.trace_of(tape), tape=tape)
    print("frames:", [f["kind"] for f in frames])
except ValueError as exc:
    print("no sweep:", str(exc)[:40])
''')
assert result.success, result.error_in_exec
"""


def test_in_an_ipython_kernel_import_tapeviz_records_the_sweep_from_the_start():
    """Issue 22: the player page's first example, in a fresh kernel, without importing tapeviz.viz first."""
    out = _run(_IPYTHON_SESSION)
    assert "recorder on: True" in out
    assert "frames: ['seed', 'step', 'done']" in out


def test_the_first_contact_recorder_is_off_with_one_switch():
    out = _run("import os; os.environ['TAPEVIZ_RECORD'] = '0'\n" + _IPYTHON_SESSION)
    assert "recorder on: False" in out
    assert "no sweep: This tape has no reverse sweep to play" in out


def test_a_plain_script_does_not_import_the_visualizer_or_ipython():
    out = _run("""
        import sys
        import tapeviz
        print(sorted(m for m in ("tapeviz.viz", "IPython", "ipywidgets", "graphviz", "PIL") if m in sys.modules))
    """)
    assert out.strip() == "[]"
