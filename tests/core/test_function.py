"""tf.function traces: tracing counts, retracing rules, side effects, the eager fallback,
replayed gradients, methods, printing, and the dict form of a ConcreteFunction.

TF's behaviour comes from tests/tf_reference/function_reference.py, run on TF 2.21.0;
the values it printed are the expected values below (``tf.print`` writes to stderr, as TF's).
"""

import json
import warnings

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.core.function import ConcreteFunction
from tapeviz.core.graph_codec import GraphNotStorable

TF_VARIABLE_ERROR = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the tf.Variable is "
    "only created once or created outside tf.function. See https://www.tensorflow.org/guide/function"
    "#creating_tfvariables for more information."
)


def test_tracing_counts_follow_tf(capsys):
    @tf.function
    def f(x, n=2):
        print("Tracing with", x, n)
        tf.print("Executing with", x)
        return x * n

    f(tf.constant(1.0))
    f(tf.constant(2.0))
    f(tf.constant([1.0]))
    f(tf.constant(1))
    f(tf.constant(1.0), 3)
    f(tf.constant(1.0), 3)
    assert f.experimental_get_tracing_count() == 4  # TF: count 4
    f(np.float32(1.0))
    assert f.experimental_get_tracing_count() == 4  # TF: a NumPy scalar is a float32 tensor
    f(np.array([1.0, 2.0]))
    f(np.array([3.0, 2.0]))
    assert f.experimental_get_tracing_count() == 5  # TF: count np array 5
    f(2.0)
    f(2.0)
    f(3.0)
    assert f.experimental_get_tracing_count() == 7  # TF: each Python value traces
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    tracing = [line for line in lines if line.startswith("Tracing")]
    assert tracing == [  # TF's lines, in TF's order
        'Tracing with Tensor("x:0", shape=(), dtype=float32) 2',
        'Tracing with Tensor("x:0", shape=(1,), dtype=float32) 2',
        'Tracing with Tensor("x:0", shape=(), dtype=int32) 2',
        'Tracing with Tensor("x:0", shape=(), dtype=float32) 3',
        'Tracing with Tensor("x:0", shape=(2,), dtype=float64) 2',
        "Tracing with 2.0 2",
        "Tracing with 3.0 2",
    ]
    executing = captured.err.splitlines()  # tf.print writes to stderr, as TF's
    assert sum(line.startswith("Executing") for line in executing) == 12  # it runs on every call (TF: 12 lines)


def test_replay_does_not_run_the_python():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return tf.sin(x) * 2.0 + x

    first = f(tf.constant([0.5, 1.0]))
    second = f(tf.constant([2.0, -1.0]))
    assert len(calls) == 1
    np.testing.assert_allclose(first.numpy(), np.sin([0.5, 1.0]) * 2 + [0.5, 1.0], rtol=1e-6)
    np.testing.assert_allclose(second.numpy(), np.sin([2.0, -1.0]) * 2 + [2.0, -1.0], rtol=1e-6)
    ops = [node.op for node in f.get_concrete_function(tf.constant([0.0, 0.0])).graph.nodes]
    assert ops == ["Sin", "Mul", "AddV2"]


def test_input_signature_traces_once_and_prints_none_sizes(capsys):
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def next_collatz(x):
        print("Tracing with", x)
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    assert next_collatz(tf.constant([1, 2])).numpy().tolist() == [4, 1]
    assert next_collatz(tf.constant([1, 2, 3, 4])).numpy().tolist() == [4, 1, 10, 2]
    assert next_collatz.experimental_get_tracing_count() == 1
    assert capsys.readouterr().out == 'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
    with pytest.raises(TypeError, match="Binding inputs to tf.function failed"):
        next_collatz(tf.constant([1.0]))


def test_reduce_retracing_widens_shapes(capsys):
    @tf.function(reduce_retracing=True)
    def h(x):
        print("trace h", x)
        return x * 2

    h(tf.constant([1.0]))
    h(tf.constant([1.0, 2.0]))
    assert h(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]
    h(tf.constant([[1.0]]))
    assert h.experimental_get_tracing_count() == 3
    assert capsys.readouterr().out.splitlines() == [
        'trace h Tensor("x:0", shape=(1,), dtype=float32)',
        'trace h Tensor("x:0", shape=(None,), dtype=float32)',
        'trace h Tensor("x:0", dtype=float32)',
    ]


def test_a_trace_that_baked_a_size_is_traced_again_for_new_sizes():
    @tf.function(input_signature=(tf.TensorSpec([None], tf.float32),))
    def f(x):
        return x + tf.zeros_like(x)  # zeros_like bakes the traced size into a constant

    assert f(tf.constant([1.0])).numpy().tolist() == [1.0]
    assert f(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [1.0, 2.0, 3.0]
    assert f.experimental_get_tracing_count() == 1


def test_variables_only_on_the_first_trace():
    @tf.function
    def g(x):
        v = tf.Variable(1.0)
        return v + x

    with pytest.raises(ValueError) as info:
        g(tf.constant(1.0))
    assert str(info.value) == TF_VARIABLE_ERROR

    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    assert [int(c()), int(c()), int(c())] == [1, 2, 3]  # TF: 1 2 3
    assert c.__call__.experimental_get_tracing_count() == 1


def test_value_read_falls_back_to_eager_with_one_warning():
    @tf.function(autograph=False)  # AutoGraph would convert the if (tests/test_autograph.py)
    def k(x):
        if x > 0:
            return x
        return -x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert float(k(tf.constant(2.0))) == 2.0
        assert float(k(tf.constant(-3.0))) == 3.0  # not the first call's branch, baked
        assert float(k(tf.constant(-1.0))) == 1.0
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1
    assert "'k' runs eagerly" in messages[0] and "bool()" in messages[0]
    assert f"{__file__}:" in messages[0]
    assert caught[0].filename == __file__
    assert "runs eagerly" in repr(k)


@pytest.mark.parametrize("read", [float, lambda t: t.numpy(), int])
def test_other_value_reads_fall_back(read):
    @tf.function
    def f(x):
        return tf.constant(read(x) * 2)

    with pytest.warns(RuntimeWarning, match="runs eagerly"):
        assert float(f(tf.constant(3.0))) == 6.0
    assert float(f(tf.constant(5.0))) == 10.0


def _model(x, w, b):
    @tf.custom_gradient
    def log1pexp(z):
        e = tf.exp(z)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    return tf.reduce_sum(log1pexp(tf.matmul(x, w) + b) * tf.tanh(x[:, :1]))


def test_gradients_through_replay_equal_eager_gradients():
    rng = np.random.default_rng(0)
    w = tf.Variable(rng.normal(size=(3, 2)))
    b = tf.Variable(rng.normal(size=(2,)))
    traced = tf.function(_model)
    for _ in range(3):  # the first call traces, the others replay
        x = tf.constant(rng.normal(size=(4, 3)))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y_traced = traced(x, w, b)
            y_eager = _model(x, w, b)
        np.testing.assert_allclose(y_traced.numpy(), y_eager.numpy(), rtol=1e-12)
        for g_t, g_e in zip(tape.gradient(y_traced, [x, w, b]), tape.gradient(y_eager, [x, w, b])):
            np.testing.assert_allclose(g_t.numpy(), g_e.numpy(), rtol=1e-12)
    assert traced.experimental_get_tracing_count() == 1


def test_replayed_gradient_matches_finite_differences():
    @tf.function
    def f(x):
        return tf.reduce_sum(tf.sin(x) * x**2)

    f(tf.constant([0.1, 0.2], dtype=tf.float64))  # trace
    x0 = np.array([0.3, -1.2], dtype=np.float64)
    x = tf.constant(x0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    grad = tape.gradient(y, x).numpy()
    eps = 1e-6
    numeric = [
        (float(f(tf.constant(x0 + eps * e))) - float(f(tf.constant(x0 - eps * e)))) / (2 * eps) for e in np.eye(2)
    ]
    np.testing.assert_allclose(grad, numeric, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_methods_have_per_instance_traces(capsys):
    class M(tf.Module):
        @tf.function
        def __call__(self, x):
            print("trace M")
            return x

    m1, m2 = M(), M()
    m1(tf.constant(1.0))
    m2(tf.constant(1.0))
    m1(tf.constant(2.0))
    assert capsys.readouterr().out == "trace M\ntrace M\n"
    assert m1.__call__.experimental_get_tracing_count() == 1


def test_pretty_printed_signature_as_tf():
    @tf.function
    def k4(x, y):
        return {"a": x + y, "b": [x]}

    c4 = k4.get_concrete_function(tf.constant(1.0), tf.constant([2.0, 3.0]))
    assert c4.pretty_printed_signature() == (
        "Input Parameters:\n"
        "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32, name=None)\n"
        "  y (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(2,), dtype=tf.float32, name=None)\n"
        "Output Type:\n"
        "  Dict[['a', TensorSpec(shape=(2,), dtype=tf.float32, name=None)], "
        "['b', List[TensorSpec(shape=(), dtype=tf.float32, name=None)]]]\n"
        "Captures:\n"
        "  None"
    )
    assert str(c4).startswith("ConcreteFunction Input Parameters:")
    assert repr(c4).startswith("<ConcreteFunction (x: TensorSpec(shape=(), dtype=tf.float32, name=None), y: ")
    assert k4.experimental_get_tracing_count() == 1
    k4(tf.constant(5.0), tf.constant([1.0, 1.0]))  # the same signature: no new trace
    assert k4.experimental_get_tracing_count() == 1


def test_get_concrete_function_from_specs_skips_side_effects(capsys):
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        v.assign_add(tf.reduce_sum(x))
        tf.print("ran")
        return x * 2

    concrete = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert float(v) == 0.0 and capsys.readouterr().err == ""  # traced, not run
    assert concrete(tf.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2.0, 4.0, 6.0]
    assert float(v) == 6.0 and capsys.readouterr().err == "ran\n"
    # TF 2.21 raises InvalidArgumentError for a tensor of another dtype (tests/tf_reference/strings_values.json,
    # "function:wrong_dtype_float"); other misfits stay a TypeError
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a float tensor but is a int32"):
        concrete(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="do not fit"):
        concrete(tf.constant([[1.0]]))


def test_random_draws_are_not_baked():
    @tf.function
    def noise(x):
        return x + tf.random.normal([3])

    a, b = noise(tf.zeros([3])), noise(tf.zeros([3]))
    assert not np.allclose(a.numpy(), b.numpy())
    assert noise.experimental_get_tracing_count() == 1


def test_nested_functions_and_executing_eagerly():
    seen = []

    @tf.function
    def inner(x):
        seen.append(tf.executing_eagerly())
        return x * 3.0

    @tf.function
    def outer(x):
        return inner(x) + 1.0

    assert float(outer(tf.constant(1.0))) == 4.0
    assert float(outer(tf.constant(2.0))) == 7.0
    assert seen == [False] and tf.executing_eagerly()


def test_a_traced_training_step_matches_eager_training():
    keras = tf.keras
    rng = np.random.default_rng(1)
    x = rng.normal(size=(16, 3)).astype("float32")
    y = x.sum(axis=1, keepdims=True)

    def train(decorate):
        tf.random.set_seed(3)
        model = keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
        optimizer = keras.optimizers.Adam(0.05)
        metric = keras.metrics.Mean()

        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(x) - y) ** 2)
            grads = tape.gradient(loss, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
            metric.update_state(loss)
            return loss, metric.result()

        step = decorate(step)
        history = [step(x, y) for _ in range(4)]
        return [(float(a), float(b)) for a, b in history], [w.numpy() for w in model.weights], step

    traced, traced_weights, step = train(tf.function)
    eager, eager_weights, _ = train(lambda f: f)
    np.testing.assert_allclose(traced, eager, rtol=1e-6)
    for a, b in zip(traced_weights, eager_weights):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert step.experimental_get_tracing_count() == 1
    assert traced[0] != traced[-1]  # it trained


def test_concrete_function_dict_round_trip_is_differentiable():
    @tf.custom_gradient
    def clip_gradient(x):
        def grad(dy):
            return tf.clip_by_norm(dy, 0.5)

        return tf.identity(x), grad

    w = tf.Variable([1.0, 2.0])

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def f(x):
        return tf.reduce_sum(clip_gradient(x * w) ** 2, axis=1)

    def eager(x, w):
        return tf.reduce_sum(clip_gradient(x * w) ** 2, axis=1)

    concrete = f.get_concrete_function()
    text = json.dumps(concrete.to_dict())
    data = json.loads(text)
    assert "clip_gradient" in text and [n["op"] for n in data["graph"]["nodes"]][:2] == ["ReadVariableOp", "Mul"]
    restored = tf.Variable([1.0, 2.0])
    loaded = ConcreteFunction.from_dict(data, [restored])
    assert loaded.pretty_printed_signature() == concrete.pretty_printed_signature().replace(w.name, restored.name)
    x = tf.constant([[1.0, 3.0], [0.5, -1.0], [2.0, 2.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y_loaded = loaded(x)
        y_eager = eager(x, restored)
    np.testing.assert_allclose(y_loaded.numpy(), y_eager.numpy())
    for g_l, g_e in zip(tape.gradient(y_loaded, [x, restored]), tape.gradient(y_eager, [x, restored])):
        np.testing.assert_allclose(g_l.numpy(), g_e.numpy(), rtol=1e-6)
    assert np.linalg.norm(tape.gradient(y_loaded, x).numpy()) <= 0.5 * 2 + 1e-6  # the custom rule ran


def test_stored_graph_names_only_registry_ops():
    @tf.function
    def f(x):
        return tf.exp(x)

    data = f.get_concrete_function(tf.constant(1.0)).to_dict()
    data["graph"]["nodes"][0]["op"] = "os.system"
    with pytest.raises(ValueError, match="not in tapeviz's primitive registry"):
        ConcreteFunction.from_dict(data, [])
    with pytest.raises(ValueError, match="captures 0 variables; 1 were given"):
        ConcreteFunction.from_dict(f.get_concrete_function(tf.constant(1.0)).to_dict(), [tf.Variable(1.0)])


def test_a_python_step_cannot_be_stored():
    optimizer = tf.keras.optimizers.SGD(0.1)
    v = tf.Variable(1.0)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = v * v
        optimizer.apply_gradients([(tape.gradient(loss, v), v)])
        return loss

    step()
    step()
    assert abs(float(v) - 0.64) < 1e-6  # replayed: two steps of v -= 0.1 * 2v
    with pytest.raises(GraphNotStorable, match="Python, not data"):
        step.get_concrete_function().to_dict()


def test_a_second_optimizer_building_slots_on_a_later_trace_is_tfs_error():
    opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)

    @tf.function
    def train_step(w, x, y, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(w * x - y))
        gradients = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip(gradients, [w]))

    w = tf.Variable(2.0)
    x, y = tf.constant([-1.0]), tf.constant([2.0])
    train_step(w, x, y, opt1)
    train_step(w, x, y, opt1)
    assert abs(float(w) - 1.9800008535385132) < 1e-6  # TF 2.21 after two Adam steps (the guide's cell)
    with pytest.raises(ValueError) as info:
        train_step(w, x, y, opt2)
    assert str(info.value) == TF_VARIABLE_ERROR


def test_a_concrete_function_keeps_the_python_arguments_it_was_traced_with():
    class SimpleModel(tf.Module):
        def __init__(self):
            self.bias = tf.Variable(0.0)
            self.weight = tf.Variable(2.0)

    def evaluate(model, x):
        return model.weight * x + model.bias

    model = SimpleModel()
    x = tf.constant(10.0)
    evaluate_no_bias = tf.function(evaluate).get_concrete_function(model, x)
    assert float(evaluate_no_bias(x)) == 20.0  # TF: tf.Tensor(20.0, ...)
    model.bias.assign_add(5.0)
    assert float(evaluate_no_bias(x)) == 25.0  # TF: 25.0 (the variable is captured, not its value)


def test_show_draws_the_traced_graph():
    from tapeviz import viz
    from tapeviz.viz import dot

    @tf.custom_gradient
    def clip(x):
        return tf.identity(x), lambda dy: tf.clip_by_norm(dy, 1.0)

    @tf.function
    def f(x):
        tf.print(x)
        return tf.reduce_sum(clip(x * 2.0))

    with pytest.raises(ValueError, match="has not traced yet"):
        viz.show(f)
    f(tf.constant([1.0, 2.0]))
    figure = viz.show(f)
    assert figure.dot == viz.show(f.concrete_functions[0]).dot  # deterministic, the same trace
    for title, note in [("x", "f32 (2,)"), ("print", "runs Python every call"), ("clip", "custom gradient")]:
        assert f'<B>{title}</B></TD></TR><TR><TD><FONT POINT-SIZE="9" COLOR="#6b7280">{note}</FONT>' in figure.dot
    assert "<B>Sum</B>" in figure.dot and "<B>returned</B>" in figure.dot
    # one visual language with the tape's pictures: their font and header, no default (serif) labels
    assert figure.dot.splitlines()[1:4] == dot.header("tape")[1:4]
    assert "out 0" not in figure.dot
    assert repr(figure).splitlines()[0] == "f: 1 inputs, 4 ops"  # print, Mul, clip, Sum


def test_a_size_read_through_an_op_is_not_baked_under_a_none_signature():
    @tf.function(input_signature=(tf.TensorSpec([None], tf.float32),))
    def mean(x):
        return tf.reduce_sum(x) / tf.cast(tf.size(x), tf.float32)  # tf.size: the traced size, made in the trace

    assert float(mean(tf.constant([1.0, 3.0]))) == 2.0
    assert float(mean(tf.constant([1.0, 2.0, 3.0, 6.0]))) == 3.0
    assert mean.experimental_get_tracing_count() == 1


def test_a_tensor_passed_twice_or_also_captured_stays_apart_on_replay():
    c = tf.constant(10.0)

    @tf.function
    def f(a, b):
        return a * 100.0 + b + c  # c: a closure capture, a constant of the trace

    assert float(f(c, c)) == 1020.0  # traced with the same tensor in both places, and as the capture
    assert float(f(tf.constant(1.0), tf.constant(2.0))) == 112.0
    assert f.experimental_get_tracing_count() == 1


def test_the_advanced_autodiff_guides_module_round_trips():
    class MyModule(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec(None)])
        def call_custom_grad(self, x):
            return clip_gradients(x)

    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, 0.5)

        return y, backward

    concrete = MyModule().call_custom_grad.get_concrete_function()
    loaded = ConcreteFunction.from_dict(json.loads(json.dumps(concrete.to_dict())), [])
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        output = loaded(v)  # a variable where the trace had a tensor is read, as TF binds it
    assert float(output) == 2.0
    assert float(tape.gradient(output, v)) == 0.5  # the guide's value on TF: tf.Tensor(0.5, ...)
    with pytest.raises(ValueError, match="cannot run on shapes"):
        loaded(tf.constant([3.0, 4.0]))  # a new rank: the axes were taken from the traced rank
    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        output = concrete(x)  # the live one traces its Python again for this rank
    np.testing.assert_allclose(
        tape.gradient(output, x).numpy(), [0.5 * 0.5**0.5] * 2, rtol=1e-6
    )  # ones clipped to norm 0.5


def test_a_size_read_in_python_is_traced_again_for_new_sizes():
    @tf.function(input_signature=(tf.TensorSpec([None, 6], tf.float32),))
    def fold(x):
        return tf.reshape(x, [x.shape[0] * 2, -1])  # the traced batch size, baked into an attribute

    assert fold(tf.zeros([4, 6])).shape == (8, 3)
    assert fold(tf.zeros([2, 6])).shape == (4, 3)  # not (8, 3): the Python ran again for this size
    assert fold.experimental_get_tracing_count() == 1


def test_py_function_runs_on_every_call_and_init_scope_once(capsys):
    @tf.py_function(Tout=tf.float32)
    def py_plus(x, y):
        print("Executing eagerly.")
        return x + y

    @tf.function
    def tf_wrapper(x, y):
        print("Tracing.")
        return py_plus(x, y)

    assert float(tf_wrapper(tf.constant(1.0), tf.constant(2.0))) == 3.0
    assert float(tf_wrapper(tf.constant(1.0), tf.constant(5.0))) == 6.0
    assert capsys.readouterr().out == "Tracing.\nExecuting eagerly.\nExecuting eagerly.\n"  # TF's lines

    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable(0)
            self.counter = 0

        @tf.function
        def __call__(self):
            if self.counter == 0:
                with tf.init_scope():
                    self.counter += 1
                    self.v.assign_add(1)
            return self.v

    m = Model()
    assert [int(m()) for _ in range(3)] == [1, 1, 1]  # TF: 1 1 1


def test_gradients_flow_through_py_function_when_traced_and_replayed():
    f = tf.function(lambda x: tf.py_function(lambda a: a * a, [x], tf.float32))
    for v in [3.0, 4.0]:  # trace, then replay
        x = tf.constant(v)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        assert float(tape.gradient(y, x)) == 2 * v
    assert f.experimental_get_tracing_count() == 1


def test_open_signatures_print_open_outputs_as_tf():
    @tf.function
    def pow(a, b):
        return a**b

    square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert str(square) == (  # TF 2.21's text, from the tf.function guide
        "ConcreteFunction Input Parameters:\n"
        "  a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)\n"
        "  b (POSITIONAL_OR_KEYWORD): Literal[2]\n"
        "Output Type:\n"
        "  TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)\n"
        "Captures:\n"
        "  None"
    )
    assert float(square(tf.constant(10.0))) == 100.0
    with pytest.raises(TypeError):
        square(tf.constant(10.0), b=3)  # the guide: a Python value other than the traced one

    @tf.function
    def scale(x):
        return x * 2.0

    rows = scale.get_concrete_function(tf.TensorSpec([None, 3], tf.float32))
    assert repr(rows.structured_outputs) == "TensorSpec(shape=(None, 3), dtype=tf.float32, name=None)"
    scale(tf.constant(1.0))
    assert (
        scale.pretty_printed_concrete_signatures()
        .split("\n\n")[1]
        .startswith("Input Parameters:\n  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tf.float32")
    )


def test_an_instance_with_traced_methods_is_freed():
    import gc
    import weakref

    class M(tf.Module):
        def __init__(self):
            self.v = tf.Variable(1.0)

        @tf.function(input_signature=(tf.TensorSpec([None], tf.float32),))
        def __call__(self, x):
            return x * self.v + tf.zeros_like(x)  # size-specific: keeps a way back to the Python

    m = M()
    m(tf.constant([1.0]))
    assert m(tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 2.0]
    gone = weakref.ref(m)
    del m
    gc.collect()
    assert gone() is None  # its traces (kept on it) went with it


def test_the_visualizers_recorder_does_not_count_as_reading_values():
    from tapeviz import viz  # noqa: F401 - subscribes the recorder, which previews values

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * x)
        return tape.gradient(y, x)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback warning
        assert step(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
        assert step(tf.constant([3.0, 1.0])).numpy().tolist() == [6.0, 2.0]
    assert "runs eagerly" not in repr(step)


def test_the_second_trace_after_making_variables_may_trip_without_failing_the_call():
    class Total(tf.Module):
        def __init__(self):
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(0.0)
            doubled = tf.py_function(lambda a: a * 2, [x], tf.float32)  # skipped in the check: None
            self.v.assign_add(doubled)
            return self.v

    total = Total()
    assert float(total(tf.constant(1.0))) == 2.0
    assert float(total(tf.constant(3.0))) == 8.0
    assert total.__call__.experimental_get_tracing_count() == 1


def test_a_library_reduction_that_reshapes_is_right_for_new_sizes():
    @tf.function(input_signature=(tf.TensorSpec([None, 3], tf.float32),))
    def spread(x):
        return tf.math.reduce_variance(x, axis=1)  # reshapes to the traced batch size inside

    x = np.arange(12, dtype=np.float32).reshape(4, 3) ** 2
    np.testing.assert_allclose(spread(tf.constant(x)).numpy(), x.var(axis=1), rtol=1e-6)
    np.testing.assert_allclose(spread(tf.constant(x[:2])).numpy(), x[:2].var(axis=1), rtol=1e-6)
    assert spread.experimental_get_tracing_count() == 1


def test_get_concrete_function_takes_a_spec_that_fits_the_input_signature():
    """TF gives the signature's ConcreteFunction for a fitting TensorSpec (the saved_model guide passes
    TensorSpec(None)); one that does not fit is TF's TypeError (tests/tf_reference/concrete_function_spec_reference.py)."""

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def f(x):
        return x * 2

    concrete = f.get_concrete_function(tf.TensorSpec([3], tf.float32))
    assert concrete is f.get_concrete_function()
    assert concrete(tf.constant([1.0, 2.0, 3.0, 4.0])).numpy().tolist() == [2.0, 4.0, 6.0, 8.0]  # any size
    expected = (
        "Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(3, 2), dtype=tf.float32, "
        "name=None) to TensorSpec(shape=(None,), dtype=tf.float32, name=None)`. Received args: "
        "(TensorSpec(shape=(3, 2), dtype=tf.float32, name=None),) and kwargs: {} for signature: "
        "(x: TensorSpec(shape=(None,), dtype=tf.float32, name=None))."
    )
    with pytest.raises(TypeError) as caught:
        f.get_concrete_function(tf.TensorSpec([3, 2], tf.float32))
    assert str(caught.value) == expected
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(3,\), dtype=tf.int32"):
        f.get_concrete_function(tf.TensorSpec([3], tf.int32))

    class Scaled(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)])
        def __call__(self, x):
            return {"custom_output_name": x * 3.0}

    outputs = Scaled().__call__.get_concrete_function(tf.TensorSpec(None, tf.float32)).structured_outputs
    assert outputs == {"custom_output_name": tf.TensorSpec(None, tf.float32)}
