"""Issue 30: an Embedding model trained with RMSprop(momentum=0.5, centered=True), saved and loaded
(`.keras`, `.weights.h5`, `tf.train.Checkpoint` restored before the slots exist), gives back the same
values and the same next training step, whatever ``PYTHONHASHSEED`` is.

Each hash seed runs in its own process (a hash seed is fixed when Python starts); the runs must
agree with themselves (loaded == saved) and with each other (one digest of every value).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("h5py", reason="the .weights.h5 and .keras formats need h5py (tapeviz[saving])")

ROOT = Path(__file__).resolve().parents[2]
HASH_SEEDS = ("0", "1", "7", "4242")

SCRIPT = r"""
import hashlib, os, sys, tempfile
import numpy as np
import tapeviz as tf

keras = tf.keras
keras.utils.set_random_seed(3)  # the same initial values in every process: only the hash seed differs
rng = np.random.default_rng(0)
x = rng.integers(0, 10, (32, 3)).astype("int32")
y = rng.random((32, 2)).astype("float32")


def make():
    model = keras.Sequential(
        [keras.Input((3,), dtype="int32"), keras.layers.Embedding(10, 4), keras.layers.Flatten(), keras.layers.Dense(2)]
    )
    model.compile(optimizer=keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True), loss="mse")
    return model


def values(model):
    return [v.numpy() for v in model.weights + model.optimizer.variables]


def same(a, b):
    return len(a) == len(b) and all(np.array_equal(p, q, equal_nan=True) for p, q in zip(a, b))


def next_step(model):
    model.fit(x[:8], y[:8], epochs=1, batch_size=8, verbose=0, shuffle=False)
    return values(model)


trained = make()
trained.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False)
saved = values(trained)
folder = tempfile.mkdtemp()
trained.save(os.path.join(folder, "model.keras"))
trained.save_weights(os.path.join(folder, "model.weights.h5"))
checkpoint = tf.train.Checkpoint(model=trained, optimizer=trained.optimizer).save(os.path.join(folder, "ckpt"))

from_keras = keras.models.load_model(os.path.join(folder, "model.keras"))
from_h5 = make()
from_h5.fit(x[:8], y[:8], epochs=1, verbose=0)  # trained a little, then overwritten
from_h5.load_weights(os.path.join(folder, "model.weights.h5"))
from_checkpoint = make()
from_checkpoint(x[:1])
tf.train.Checkpoint(model=from_checkpoint, optimizer=from_checkpoint.optimizer).restore(checkpoint)

for name, model in (("keras", from_keras), ("weights.h5", from_h5)):
    assert same(values(model), saved), f"{name}: load put other values in"
after = next_step(trained)
for name, model in (("keras", from_keras), ("weights.h5", from_h5), ("checkpoint", from_checkpoint)):
    got = next_step(model)
    assert same(got, after), f"{name}: the next training step differs from the saved model's"
    assert not any(np.isnan(v).any() for v in got), f"{name}: NaN after the next step"
print(hashlib.sha256(b"".join(v.tobytes() for v in saved + after)).hexdigest())
"""


def _run(hash_seed):
    env = dict(os.environ, PYTHONHASHSEED=hash_seed, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"PYTHONHASHSEED={hash_seed}:\n{done.stderr[-3000:]}"
    return done.stdout.strip().splitlines()[-1]


def test_the_round_trip_is_the_same_under_every_hash_seed():
    digests = {seed: _run(seed) for seed in HASH_SEEDS}
    assert len(set(digests.values())) == 1, digests
