"""TF 2.21 behaviour behind tests/saved_model/test_generator.py: a tf.random.Generator saved with its module.

Run with TensorFlow installed: python tests/tf_reference/saved_generator_reference.py.
It saves modules holding a Generator (plain, with a variable and a list of
generators, under a two-replica MirroredStrategy), then loads each in a fresh
Python (where the classes are not defined) and prints the state and the draws
of the loaded functions. Printed on TF 2.21.0 (the values are in the test):

    plain_variables: 0
    plain_before_save: -1.3544158935546875
    plain_after_save: -1.0359411239624023
    plain: {"values": [[[256, 0, 0], -1.0359411239624023], [[512, 0, 0], -0.06425077468156815], [[768, 0, 0]]]}
    uncalled: {"values": [[[0, 0, 0], -1.3544158935546875], [[256, 0, 0], -1.0359411239624023], [[512, 0, 0]]]}
    mixed_before_save: [[2.273057460784912, 3.7007436752319336], [0.399328351020813, 0.7840713262557983], [0.43116673827171326, -1.4442064762115479], [6, 1]]
    mixed: {"states": [[1543, 0, 0], [523, 0, 0]], "call": [3.222960948944092, 4.764268398284912], "draws": [[0.9556506872177124, 0.4111745357513428], [-1.5651421546936035, -0.46152302622795105], [9, 6]], "states_after": [[3079, 0, 0], [1035, 0, 0]]}
    mirrored_run: [-1.4154754877090454, -0.11388441175222397]
    mirrored: {"values": [[[256, 0, 0], -1.0359411239624023], [[512, 0, 0], -0.06425077468156815], [[768, 0, 0]]]}
"""

import json
import subprocess
import sys
import tempfile

import tensorflow as tf


class Plain(tf.Module):
    def __init__(self):
        super().__init__()
        self.g = tf.random.Generator.from_seed(0)

    @tf.function
    def __call__(self):
        return self.g.normal([])

    @tf.function
    def state(self):
        return self.g.state


class Mixed(tf.Module):
    """A variable, a Generator in a list, a signed function and the other draws."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(2.0)
        self.gens = [tf.random.Generator.from_seed(7), tf.random.Generator.from_seed(11)]

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x):
        return self.w * x + self.gens[1].normal([2])

    @tf.function
    def draws(self):
        g = self.gens[0]
        return g.uniform([2]), g.truncated_normal([2]), g.uniform([2], 0, 10, dtype=tf.int64)

    @tf.function
    def states(self):
        return self.gens[0].state, self.gens[1].state


LOADER = r"""
import json, sys
import tensorflow as tf
case, path = sys.argv[1], sys.argv[2]
out = {}
m = tf.saved_model.load(path)
if case == "plain":
    out["values"] = []
    for _ in range(2):
        out["values"].append([m.state().numpy().tolist(), float(m().numpy())])
    out["values"].append([m.state().numpy().tolist()])
else:
    out["states"] = [s.numpy().tolist() for s in m.states()]
    out["call"] = m(tf.constant([1.0, 2.0])).numpy().tolist()
    out["draws"] = [d.numpy().tolist() for d in m.draws()]
    out["states_after"] = [s.numpy().tolist() for s in m.states()]
print(json.dumps(out))
"""


def load_in_fresh_python(case, path):
    result = subprocess.run([sys.executable, "-c", LOADER, case, path], capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    tf.config.set_logical_device_configuration(
        tf.config.list_physical_devices("CPU")[0], [tf.config.LogicalDeviceConfiguration()] * 2
    )
    found = {}
    plain = Plain()
    found["plain_variables"] = len(plain.variables)  # the Generator's state is not among module.variables
    found["plain_before_save"] = float(plain().numpy())
    path = tempfile.mkdtemp()
    tf.saved_model.save(plain, path)
    found["plain_after_save"] = float(plain().numpy())  # the original goes on: the file holds the state at saving
    found["plain"] = load_in_fresh_python("plain", path)

    uncalled = Plain()  # its functions take no arguments: TF traces them at saving (input_signature ())
    path = tempfile.mkdtemp()
    tf.saved_model.save(uncalled, path)
    found["uncalled"] = load_in_fresh_python("plain", path)

    mixed = Mixed()
    found["mixed_before_save"] = [mixed(tf.constant([1.0, 2.0])).numpy().tolist()] + [
        d.numpy().tolist() for d in mixed.draws()
    ]
    path = tempfile.mkdtemp()
    tf.saved_model.save(mixed, path)
    found["mixed"] = load_in_fresh_python("mixed", path)

    strategy = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
    with strategy.scope():
        mirrored = Plain()
        runs = strategy.run(mirrored)
        found["mirrored_run"] = [float(v.numpy()) for v in strategy.experimental_local_results(runs)]
        path = tempfile.mkdtemp()
        tf.saved_model.save(mirrored, path)
    found["mirrored"] = load_in_fresh_python("plain", path)
    for key, value in found.items():
        print(f"{key}: {json.dumps(value)}")


if __name__ == "__main__":
    main()
