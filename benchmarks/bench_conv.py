"""The DCGAN step of the Keras custom-training-loop guide: tapeviz against TensorFlow eager.

Run with any Python that can import tapeviz; TensorFlow is a contender, never
a dependency, so it is compared only where it is installed, e.g.

    PYTHONPATH=. /tmp/tfenv/bin/python benchmarks/bench_conv.py

(without TensorFlow the tapeviz step is timed alone, saying so).

The model is the guide's ("Writing a training loop from scratch", the GAN
example): a discriminator Conv2D 64 / Conv2D 128 (3x3, stride 2, 'same') with
LeakyReLU, global max pooling and a Dense logit; a generator Dense 7*7*128,
Reshape, two Conv2DTranspose 128 (4x4, stride 2, 'same') and a Conv2D 1
(7x7, sigmoid); Adam, binary cross-entropy from logits; batch 64 of 28x28.
One step trains the discriminator on generated and real images, then the
generator through the discriminator.

Reported: the median wall time of several steps of each, timed in
alternation in the same process (both use their default threads), and the
ratio. On a shared machine the figures are noisy; the ratio less so.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the package, when run from a checkout

BATCH, LATENT = 64, 128


def gan(tf, keras):
    """The guide's models, optimizers, loss and train_step, written against ``tf`` and ``keras``."""
    layers = keras.layers
    discriminator = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            layers.Conv2D(64, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(128, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.GlobalMaxPooling2D(),
            layers.Dense(1),
        ],
        name="discriminator",
    )
    generator = keras.Sequential(
        [
            keras.Input(shape=(LATENT,)),
            layers.Dense(7 * 7 * 128),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Reshape((7, 7, 128)),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )
    d_optimizer = keras.optimizers.Adam(learning_rate=0.0003)
    g_optimizer = keras.optimizers.Adam(learning_rate=0.0004)
    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)

    def train_step(real_images):
        latent = tf.random.normal(shape=(BATCH, LATENT))
        generated = generator(latent)
        combined = tf.concat([generated, real_images], axis=0)
        labels = tf.concat([tf.ones((BATCH, 1)), tf.zeros((real_images.shape[0], 1))], axis=0)
        labels += 0.05 * tf.random.uniform(labels.shape)
        with tf.GradientTape() as tape:
            d_loss = loss_fn(labels, discriminator(combined))
        grads = tape.gradient(d_loss, discriminator.trainable_weights)
        d_optimizer.apply(grads, discriminator.trainable_weights)
        latent = tf.random.normal(shape=(BATCH, LATENT))
        with tf.GradientTape() as tape:
            g_loss = loss_fn(tf.zeros((BATCH, 1)), discriminator(generator(latent)))
        grads = tape.gradient(g_loss, generator.trainable_weights)
        g_optimizer.apply(grads, generator.trainable_weights)
        return float(d_loss), float(g_loss)

    return train_step


def contenders():
    """(name, train_step) for tapeviz, and for TensorFlow eager where it is installed."""
    import tapeviz
    from tapeviz import keras as tv_keras

    found = [("tapeviz", gan(tapeviz, tv_keras))]
    try:
        import tensorflow
    except ImportError:
        print("TensorFlow: skipped (not installed in this Python; see the module docstring)")
        return found
    found.append((f"TF {tensorflow.__version__} eager", gan(tensorflow, tensorflow.keras)))
    return found


def median_step(step, images, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        step(images)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="steps timed per contender per pass (default 5)")
    parser.add_argument("--passes", type=int, default=3, help="alternating passes (default 3)")
    args = parser.parse_args(argv)
    images = np.random.default_rng(0).uniform(size=(BATCH, 28, 28, 1)).astype(np.float32)
    steps = contenders()
    for _, step in steps:
        step(images)  # warm-up: builds the models and optimizer slots
    times = {name: [] for name, _ in steps}
    for _ in range(args.passes):
        for name, step in steps:
            times[name].append(median_step(step, images, args.rounds))
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    ours = medians["tapeviz"]
    print(f"DCGAN step (batch {BATCH}, 28x28, 128 channels), median wall time:")
    for name, seconds in medians.items():
        ratio = "" if name == "tapeviz" else f"   tapeviz / this = {ours / seconds:.2f}"
        print(f"  {name:<18} {seconds:7.3f} s{ratio}")
    return medians


if __name__ == "__main__":
    main()
