# %% [markdown]
# # Lesson 9 — A neural network on real data
#
# **Goal:** train a small network on real handwritten digits twice: with your
# own `GradientTape` loop over a `tf.data.Dataset`, and with Keras's
# `compile`/`fit`, and learn why you call `model(x)`, not `model.predict(x)`,
# inside a tape.

# %%
import numpy as np

import tapeviz as tf
from tapeviz import datasets, lessons

lessons.setup()

# %% [markdown]
# ## The data: 1,797 handwritten digits
#
# scikit-learn ships these 8x8 grey images inside its package (nothing is
# downloaded). `datasets.load_digits` splits them into a training and a test
# set, the same split on every machine.

# %% check
(x_train, y_train), (x_test, y_test) = datasets.load_digits(flatten=True)
print("train:", x_train.shape, y_train.shape, " test:", x_test.shape, y_test.shape)
print("pixels in", float(x_train.min()), "..", float(x_train.max()), "; labels", sorted(set(y_train.tolist())))

# %% [markdown]
# A few of them, drawn as text (darker = more ink):

# %% check
shades = " .:-=+*#%@"
for image, label in zip(x_train[:3], y_train[:3]):
    print(f"label {label}")
    for row in image.reshape(8, 8):
        print("  " + "".join(shades[int(v * 9)] * 2 for v in row))

# %% [markdown]
# ## A custom training loop
#
# The seeds' pattern, unchanged: for each epoch, for each batch, the forward
# pass and the loss inside the tape, gradients after it, one optimizer step.

# %% check
tf.random.set_seed(0)
model = tf.keras.Sequential(
    [
        tf.keras.layers.Dense(64, activation="relu", name="hidden"),
        tf.keras.layers.Dense(10, name="logits"),
    ],
    name="digits",
)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = tf.keras.optimizers.Adam(learning_rate=1e-2)
dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(2000, seed=0).batch(32)

for epoch in range(5):
    losses = []
    for inputs, targets in dataset:
        with tf.GradientTape() as tape:
            predictions = model(inputs)
            loss = loss_fn(targets, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        losses.append(float(loss.numpy()))
    print(f"epoch {epoch}: mean loss {np.mean(losses):.3f}")

logits = model(x_test)
accuracy = float(np.mean(np.argmax(logits.numpy(), axis=1) == y_test))
print(f"test accuracy: {accuracy:.3f}")

# %% [markdown]
# The tape of the last training step. `max_nodes` is a drawing budget: when a
# tape needs more nodes than that, `tf.show` folds the ops of each name scope
# into one box. Here, with a budget of 12, each `Dense` layer and the loss
# become one box named by its scope, between the weights (green, with their
# gradients) and the loss (the target). The boxes carry the names given to the
# model and its layers (`digits/hidden`, `digits/logits`);
# `open=["digits/hidden"]` would unfold that box again. Where a node reads
# *released* instead of a value, the tape let go of that tensor when `gradient`
# returned (a non-persistent tape), and it was too large for the recorder to
# keep a copy; its gradient (`∂`) is summarised by mean, min and max.

# %%
tf.show(tape, max_nodes=12)

# %% [markdown]
# ## The same with `compile` / `fit`
#
# For a standard training step Keras's high-level API does the loop for you:
# `fit` runs the same tape, gradient and `apply_gradients` for each batch.

# %% check
tf.random.set_seed(0)
fitted = tf.keras.Sequential(
    [
        tf.keras.layers.Dense(64, activation="relu", name="hidden"),
        tf.keras.layers.Dense(10, name="logits"),
    ],
    name="fitted",
)
fitted.compile(
    optimizer=tf.keras.optimizers.Adam(learning_rate=1e-2),
    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
history = fitted.fit(x_train, y_train, epochs=5, batch_size=32, verbose=0, validation_data=(x_test, y_test))
print("val_accuracy per epoch:", [round(v, 3) for v in history.history["val_accuracy"]])
loss, acc = fitted.evaluate(x_test, y_test, verbose=0)
print(f"test accuracy: {acc:.3f}")

# %% [markdown]
# ## `model(x)` inside a tape, never `model.predict(x)`
#
# `model.predict` returns a NumPy array: the values leave the tape's world, and
# whatever comes back in is a new constant. Its gradient is `None`, exactly as in
# TensorFlow. Calling the model (`model(x)`, i.e. its `call`) keeps every op on
# the tape.

# %% check
batch, labels = x_test[:8], y_test[:8]
with tf.GradientTape(persistent=True) as tape:
    through_call = loss_fn(labels, model(batch))
    through_predict = loss_fn(labels, tf.constant(model.predict(batch, verbose=0)))
kernel = model.trainable_variables[0]
print("via model(x):      ", tape.gradient(through_call, kernel).shape)
print("via model.predict: ", tape.gradient(through_predict, kernel))

# %% [markdown]
# `tf.explain` says why, and draws what it names: on the left the tape's path
# from the kernel through both layers to the logits; on the right, in red (the
# break), the constant `tf.constant` made from `model.predict`'s NumPy array,
# with the same values but no history, and the loss computed from it. Tensors
# with no Python name are drawn as `#` and a number, and the message calls them
# the same.

# %%
explanation = tf.explain(tape, through_predict, kernel)
del tape
explanation

# %% [markdown]
# ## Exercises
#
# **1.** Train your own digits model to at least 90% test accuracy, with a
# custom loop or with `fit`, and answer with the trained model itself: the
# checker evaluates it on the test set. What would you change first if it
# stays below 90%?

# %%
answer = ...  # your trained model, e.g. answer = mine
lessons.check("09.accuracy", answer)

# %% [markdown]
# **2.** Predict, for each of these four ways of getting outputs inside a tape,
# whether a loss computed from them still has a path back to the model's
# weights (a gradient that is not `None`):
#
# 1. `model(batch)`
# 2. `tf.constant(model.predict(batch))`
# 3. `tf.constant(model(batch).numpy())`
# 4. `model(batch) * 2.0`
#
# Answer with four booleans, then check your prediction with a tape.

# %%
answer = ...  # e.g. [True, True, True, True]
lessons.check("09.keeps_path", answer)

# %% [markdown]
# Next: [lesson 10](10_debugging.ipynb), debugging gradients.
