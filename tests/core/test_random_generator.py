"""tf.random.Generator and the stateless ops, as TensorFlow's random-numbers guide uses them.

The facts asserted here were observed with TF 2.21 (/tmp/tfenv, tests/tf_reference has no data for
them: every value is written below): ``from_seed(1).state`` is [1, 0, 0] (-1 gives [-1, -1, -1],
2**70 gives [0, 64, 0], ThreeFry's state has 2 words); each draw moves the counter by 256 per value
(normal([2, 3]) from [1, 0, 0] gives [1537, 0, 0]); ``skip(n)`` returns the state before it and lands
where ``normal([n])`` would; ``make_seeds(3)`` is a [2, 3] int64 tensor whose second row is 0; the
error types and messages below. The numbers themselves are not TF's (NumPy's Philox, docs/tf-map.md).
"""

import numpy as np
import pytest

import tapeviz as tf

Generator = tf.random.Generator


def _state(g):
    return g.state.numpy().tolist()


@pytest.mark.parametrize(
    "seed, alg, state",
    [
        (1, None, [1, 0, 0]),
        (1, "philox", [1, 0, 0]),
        (-1, None, [-1, -1, -1]),
        (2**70, None, [0, 64, 0]),
        (1.5, None, [1, 0, 0]),
        (1, "threefry", [1, 0]),
    ],
)
def test_from_seed_lays_the_seed_out_as_tf(seed, alg, state):
    g = Generator.from_seed(seed, alg=alg)
    assert _state(g) == state
    assert g.state.dtype == tf.int64 and not g.state.trainable


def test_algorithm_names_enum_and_ints():
    assert [a.value for a in tf.random.Algorithm] == [1, 2, 3]
    assert Generator.from_seed(1).algorithm == 1
    assert Generator.from_seed(1, alg="threefry").algorithm == 2
    assert Generator.from_seed(1, alg="auto_select").algorithm == 3
    assert Generator.from_seed(1, alg=tf.random.Algorithm.PHILOX).algorithm == 1
    assert Generator.from_seed(1, alg=2).algorithm == 2
    with pytest.raises(ValueError, match="^Argument `alg` got unsupported value foo. Supported values are philox"):
        Generator.from_seed(1, alg="foo")


def test_a_seed_gives_the_same_stream_every_time_and_reset_replays_it():
    a, b = Generator.from_seed(7), Generator.from_seed(7)
    first = a.normal([2, 3]).numpy()
    np.testing.assert_array_equal(first, b.normal([2, 3]).numpy())
    second = a.normal([2, 3]).numpy()
    assert not np.array_equal(first, second)  # the stream moves on
    a.reset_from_seed(7)
    np.testing.assert_array_equal(a.normal([2, 3]).numpy(), first)
    assert not np.array_equal(Generator.from_seed(8).normal([2, 3]).numpy(), first)


def test_a_counter_based_stream_starts_with_the_same_value_whatever_the_shape():
    """As in TF (the guide prints g.normal([2, 3]) and g.normal([]) from the same seed)."""
    assert Generator.from_seed(1).normal([]).numpy() == Generator.from_seed(1).normal([2, 3]).numpy()[0, 0]


def test_the_counter_moves_256_per_value_as_tf():
    g = Generator.from_seed(1)
    g.normal([2, 3])
    assert _state(g) == [1537, 0, 0]
    g.normal([1000])
    assert _state(g) == [257537, 0, 0]
    g.uniform([5])
    assert _state(g) == [258817, 0, 0]
    h = Generator.from_state([-1, 0, 9], alg="philox")  # the low word carries into the high one
    h.normal([])
    assert _state(h) == [255, 1, 9]


def test_skip_lands_where_a_draw_would_and_returns_the_state_before():
    g, h = Generator.from_seed(3), Generator.from_seed(3)
    before = g.skip(10)
    assert before.numpy().tolist() == [3, 0, 0]
    h.normal([10])
    assert _state(g) == _state(h)
    np.testing.assert_array_equal(g.normal([4]).numpy(), h.normal([4]).numpy())


@pytest.mark.parametrize("dtype", [tf.float16, tf.float32, tf.float64])
def test_float_draws_shapes_and_dtypes(dtype):
    g = Generator.from_seed(0)
    for draw in (g.normal, g.uniform, g.truncated_normal):
        t = draw([2, 3], dtype=dtype)
        assert t.shape == (2, 3) and t.dtype == dtype
    assert g.normal([]).shape == ()
    assert g.normal(tf.constant([2, 2])).shape == (2, 2)


def test_values_follow_their_distribution_parameters():
    g = Generator.from_seed(0)
    u = g.uniform([4000], minval=2.0, maxval=3.0).numpy()
    assert 2.0 <= u.min() and u.max() < 3.0 and abs(u.mean() - 2.5) < 0.02
    n = g.normal([4000], mean=10.0, stddev=0.5).numpy()
    assert abs(n.mean() - 10.0) < 0.05 and abs(n.std() - 0.5) < 0.05
    t = g.truncated_normal([4000]).numpy()
    assert np.abs(t).max() <= 2.0
    ints = g.uniform([4000], minval=3, maxval=7, dtype=tf.int64).numpy()
    assert ints.dtype == np.int64 and set(ints.tolist()) == {3, 4, 5, 6}
    full = g.uniform_full_int([4000], dtype=tf.int32).numpy()
    assert full.dtype == np.int32 and full.min() < -(2**30) and full.max() > 2**30
    b = g.binomial([3000], counts=10.0, probs=0.3)
    assert b.dtype == tf.int32 and abs(b.numpy().mean() - 3.0) < 0.1
    assert g.binomial([2], counts=[10.0, 20.0], probs=[0.5, 0.1], dtype=tf.int64).dtype == tf.int64


def test_draw_errors_are_tfs():
    g = Generator.from_seed(1)
    before = _state(g)
    with pytest.raises(TypeError, match="^Cannot convert 0.0 to EagerTensor of dtype int32"):
        g.normal([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="^Cannot convert 0.0 to EagerTensor of dtype int32"):
        g.truncated_normal([2], dtype=tf.int32)
    with pytest.raises(TypeError, match="^Cannot convert 0 to EagerTensor of dtype bool"):
        g.uniform([3], dtype=tf.bool)
    with pytest.raises(
        ValueError,
        match=r"^For integer dtype <dtype: 'int32'>, minval and maxval must be both `None` or both non-`None`; "
        r"got minval=0 and maxval=None$",
    ):
        g.uniform([3], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Need minval < maxval, got 5 >= 2"):
        g.uniform([3], minval=5, maxval=2, dtype=tf.int64)
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Value for attr 'dtype' of float is not in the list"):
        g.uniform_full_int([2], dtype=tf.float32)
    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"^shape must be a vector of \{int32,int64\}, got shape \[\]"
    ):
        g.normal(3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Dimension -1 must be >= 0"):
        g.normal([-1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Value for attr 'Tshape' of float"):
        g.normal([2.5])
    assert _state(g) == before  # a refused draw does not move the stream


def test_making_one_from_a_state_or_a_key_and_counter():
    assert _state(Generator.from_state([1, 2, 3], alg="philox")) == [1, 2, 3]
    assert _state(Generator(state=[1, 2, 3], alg="philox")) == [1, 2, 3]
    assert _state(Generator.from_key_counter(5, [1, 2], alg="philox")) == [1, 2, 5]
    with pytest.raises(ValueError, match=r"^Shapes \(2,\) and \[3\] are incompatible$"):
        Generator.from_state([1, 2], alg="philox")
    with pytest.raises(ValueError, match=r"^Shapes \(1,\) and \[\] are incompatible$"):
        Generator.from_key_counter([5], [1, 2], alg="philox")
    with pytest.raises(ValueError, match="needs `copy_from`, or both `state` and `alg`"):
        Generator()  # TF: a bare AssertionError
    with pytest.raises(TypeError, match="A random seed must be an integer"):
        Generator.from_seed("a")  # TF: UnimplementedError from a string cast


def test_copy_from_and_reset():
    g = Generator.from_seed(1)
    g.normal([3])
    copy = Generator(copy_from=g)
    assert _state(copy) == _state(g) and copy.algorithm == g.algorithm
    np.testing.assert_array_equal(copy.normal([2]).numpy(), g.normal([2]).numpy())
    g.reset([4, 5, 6])
    assert _state(g) == [4, 5, 6]
    g.reset_from_key_counter(7, [8, 9])
    assert _state(g) == [8, 9, 7]
    assert int(g.key.numpy()) == 7 and g.key.dtype == tf.int64


def test_split_gives_independent_reproducible_streams_and_moves_the_parent():
    g = Generator.from_seed(1)
    children = g.split(3)
    assert len(children) == 3 and all(isinstance(c, Generator) for c in children)
    assert _state(g) == [1 + 3 * 256, 0, 0]
    draws = [c.normal([4]).numpy() for c in children]
    assert not np.array_equal(draws[0], draws[1]) and not np.array_equal(draws[1], draws[2])
    again = [c.normal([4]).numpy() for c in Generator.from_seed(1).split(3)]
    for a, b in zip(draws, again):
        np.testing.assert_array_equal(a, b)
    assert g.split(0) == [] and len(g.split()) == 1


def test_make_seeds_feed_the_stateless_ops():
    seeds = Generator.from_seed(1).make_seeds(3)
    assert seeds.shape == (2, 3) and seeds.dtype == tf.int64
    assert seeds.numpy()[1].tolist() == [0, 0, 0]
    assert Generator.from_seed(1).make_seeds().shape == (2, 1)
    column = seeds[:, 0]
    np.testing.assert_array_equal(
        tf.random.stateless_normal([3], seed=column).numpy(), tf.random.stateless_normal([3], seed=column).numpy()
    )


def test_stateless_ops_depend_on_the_seed_alone():
    a = tf.random.stateless_normal(shape=[2, 3], seed=[1, 2])
    np.testing.assert_array_equal(a.numpy(), tf.random.stateless_normal(shape=[2, 3], seed=[1, 2]).numpy())
    assert a.dtype == tf.float32 and a.shape == (2, 3)
    assert not np.array_equal(a.numpy(), tf.random.stateless_normal(shape=[2, 3], seed=[1, 3]).numpy())
    ints = tf.random.stateless_uniform([50], seed=[1, 2], minval=0, maxval=10, dtype=tf.int32)
    assert ints.dtype == tf.int32 and 0 <= ints.numpy().min() and ints.numpy().max() < 10
    assert np.abs(tf.random.stateless_truncated_normal([100], seed=[3, 4]).numpy()).max() <= 2.0
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^seed must have shape \[2\], not \[3\]"):
        tf.random.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="^Value for attr 'Tseed' of float"):
        tf.random.stateless_normal([2], seed=[1.0, 2.0])
    with pytest.raises(ValueError, match="^For integer `dtype` argument <dtype: 'int32'>, argument `minval` and"):
        tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32)


def test_a_checkpoint_saves_the_stream_position_under_tfs_key(tmp_path):
    """The guide's cells: write, draw two, restore, draw the same two again."""
    g = Generator.from_seed(1)
    checkpoint = tf.train.Checkpoint(generator=g)
    g.normal([])
    path = checkpoint.write(str(tmp_path / "checkpoint"))
    after_save = [float(g.normal([])), float(g.normal([]))]
    checkpoint.restore(path)
    assert [float(g.normal([])), float(g.normal([]))] == after_save
    keys = [name for name, _ in tf.train.list_variables(path)]
    assert "generator/_state_var/.ATTRIBUTES/VARIABLE_VALUE" in keys


def test_a_module_holding_a_generator_lists_no_variable_but_its_checkpoint_keeps_the_stream(tmp_path):
    """As TF 2.21: a Generator is not a tf.Module (Module.variables is empty), yet checkpoints track it."""

    class Holder(tf.Module):
        def __init__(self):
            super().__init__()
            self.g = Generator.from_seed(0)

    holder = Holder()
    assert not isinstance(holder.g, tf.Module) and holder.variables == ()
    path = tf.train.Checkpoint(model=holder).write(str(tmp_path / "ckpt"))
    expected = float(holder.g.normal([]))
    holder.g.normal([5])
    tf.train.Checkpoint(model=holder).restore(path)
    assert float(holder.g.normal([])) == expected
    assert "model/g/_state_var/.ATTRIBUTES/VARIABLE_VALUE" in [name for name, _ in tf.train.list_variables(path)]


def test_inside_tf_function_each_call_draws_anew():
    g = Generator.from_seed(1)

    @tf.function
    def draw():
        return g.normal([])

    first, second = float(draw()), float(draw())
    h = Generator.from_seed(1)
    assert [first, second] == [float(h.normal([])), float(h.normal([]))]


def test_the_global_generator():
    g = tf.random.get_global_generator()
    assert isinstance(g, Generator) and tf.random.get_global_generator() is g
    replacement = Generator.from_seed(5)
    try:
        tf.random.set_global_generator(replacement)
        assert tf.random.get_global_generator() is replacement
        with pytest.raises(TypeError, match="takes a tf.random.Generator"):
            tf.random.set_global_generator(5)
    finally:
        tf.random.set_global_generator(g)
