"""keras.random: Keras 3's seed semantics, shapes and dtypes, and the distributions' statistics.

The facts are Keras 3.15 / TF 2.21's, in tests/tf_reference/keras_random_facts.json
(written by keras_random_reference.py). The values themselves are TF's and are
compared in test_random_tf_values.py; here the distributions are checked by
their statistics.
"""

import json
import pathlib

import numpy as np
import pytest

import tapeviz as tf
from tapeviz.keras import ops
from tapeviz.keras import random as R

FACTS = json.loads((pathlib.Path(__file__).parents[1] / "tf_reference" / "keras_random_facts.json").read_text())

DRAWS = {
    "normal": lambda s: R.normal((2, 3), seed=s),
    "uniform": lambda s: R.uniform((2, 3), minval=-1.0, maxval=2.0, seed=s),
    "uniform_f64": lambda s: R.uniform((2,), dtype="float64", seed=s),
    "randint": lambda s: R.randint((4,), 0, 5, seed=s),
    "truncated_normal": lambda s: R.truncated_normal((3,), seed=s),
    "categorical": lambda s: R.categorical(np.log([[0.5, 0.5, 1e-9]]), 4, seed=s),
    "gamma": lambda s: R.gamma((2,), 2.0, seed=s),
    "binomial": lambda s: R.binomial((2,), 5, 0.5, seed=s),
    "beta": lambda s: R.beta((2,), 2.0, 3.0, seed=s),
    "dropout": lambda s: R.dropout(np.ones((2, 8), "float32"), 0.5, seed=s),
    "shuffle": lambda s: R.shuffle(np.arange(6), seed=s),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_seed_semantics_dtype_and_shape_are_keras(name):
    draw, want = DRAWS[name], FACTS[name]
    a, b = draw(7), draw(7)
    gen = R.SeedGenerator(3)
    c, d = draw(gen), draw(gen)
    assert ops.dtype(a) == want["dtype"] and list(a.shape) == want["shape"]
    assert np.array_equal(a.numpy(), b.numpy()) == want["int_seed_repeats"]
    if name != "categorical":  # four draws from nearly two classes may repeat
        assert (not np.array_equal(c.numpy(), d.numpy())) == want["generator_advances"]
    assert gen.state.numpy().tolist() == want["generator_state"]


def test_seed_generator_state_config_and_errors():
    gen = R.SeedGenerator(seed=42, name="sg")
    assert gen.get_config() == FACTS["generator_config"]
    assert gen.state.dtype.name == FACTS["generator_state_dtype"] and not gen.state.trainable
    again = R.SeedGenerator.from_config(gen.get_config())
    assert np.array_equal(R.normal((3,), seed=gen).numpy(), R.normal((3,), seed=again).numpy())
    kind, message = FACTS["bad_seed"]
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        R.normal((2,), seed="x")
    kind, message = FACTS["bad_generator_seed"]
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        R.SeedGenerator(seed=1.5)


def test_set_random_seed_makes_unseeded_draws_repeat():
    tf.keras.utils.set_random_seed(5)
    first = R.normal((3,)).numpy()
    tf.keras.utils.set_random_seed(5)
    assert np.array_equal(first, R.normal((3,)).numpy()) == FACTS["set_random_seed_repeats_unseeded"]
    assert not np.array_equal(R.normal((3,)).numpy(), R.normal((3,)).numpy())


def test_dropout_keeps_scaled_values_follows_noise_shape_and_is_differentiable():
    drop = R.dropout(np.ones((200, 50), "float32"), 0.3, seed=1).numpy()
    assert sorted(set(np.round(drop.ravel(), 6).tolist())) == pytest.approx(FACTS["dropout_values"], rel=1e-6)
    assert abs((drop == 0).mean() - 0.3) < 0.02
    noise = R.dropout(np.ones((4, 6), "float32"), 0.5, noise_shape=(None, 1), seed=1).numpy()
    assert all(len(set(row)) == 1 for row in noise.tolist()) == FACTS["dropout_noise_shape_rows_constant"]
    assert R.dropout(np.ones(3, "float32"), 1.0).numpy().tolist() == FACTS["dropout_rate_1"]
    x = tf.constant(np.arange(1.0, 9.0, dtype=np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = R.dropout(x, 0.5, seed=4)
        assert [e.scope for e in tape.recorded_ops] == ["dropout"]
    grad = tape.gradient(y, x).numpy()
    assert np.allclose(grad, y.numpy() / x.numpy()) and set(grad.tolist()) <= {0.0, 2.0}


def test_shuffle_permutes_along_an_axis_and_passes_gradients_back():
    x = tf.constant(np.arange(12.0).reshape(3, 4))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = R.shuffle(x, axis=1, seed=2)
    assert sorted(y.numpy()[0].tolist()) == [0.0, 1.0, 2.0, 3.0]
    perm = y.numpy()[0].astype(int)
    assert np.array_equal(y.numpy(), x.numpy()[:, perm])
    weights = np.arange(12.0).reshape(3, 4)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = R.shuffle(x, axis=1, seed=2)
        total = ops.sum(y * weights)
    grad = tape.gradient(total, x).numpy()
    assert sorted(grad.ravel().tolist()) == sorted(weights.ravel().tolist())


def test_the_distributions_have_their_moments():
    n = 40000
    normal = R.normal((n,), mean=2.0, stddev=3.0, seed=1).numpy()
    assert abs(normal.mean() - 2.0) < 0.06 and abs(normal.std() - 3.0) < 0.06
    uniform = R.uniform((n,), minval=-1.0, maxval=3.0, seed=1).numpy()
    assert uniform.min() >= -1.0 and uniform.max() < 3.0 and abs(uniform.mean() - 1.0) < 0.03
    truncated = R.truncated_normal((n,), stddev=2.0, seed=1).numpy()
    assert np.abs(truncated).max() <= 4.0 and 0.85 < truncated.std() / 2.0 < 0.9  # sd of N(0,1) cut at 2: 0.880
    ints = R.randint((n,), 2, 6, seed=1).numpy()
    assert set(ints.tolist()) == {2, 3, 4, 5}
    # TF's gamma kernel runs per value in Python (about 0.2 ms each): 4,000 values, tolerances of ~3.5
    # standard errors (gamma(3): sd 1.73, beta(2, 6): sd 0.144)
    gamma = R.gamma((4000,), 3.0, seed=1).numpy()
    assert abs(gamma.mean() - 3.0) < 0.1
    binomial = R.binomial((n,), 10, 0.3, seed=1).numpy()
    assert abs(binomial.mean() - 3.0) < 0.05
    beta = R.beta((4000,), 2.0, 6.0, seed=1).numpy()
    assert abs(beta.mean() - 0.25) < 0.008
    samples = R.categorical(np.log([[0.2, 0.8], [0.9, 0.1]]), 20000, seed=1).numpy()
    assert abs(samples[0].mean() - 0.8) < 0.02 and abs(samples[1].mean() - 0.1) < 0.02
