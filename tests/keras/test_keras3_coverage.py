"""Which of Keras 3's public names tapeviz.keras has, namespace by namespace.

tests/keras3_public_names.json is Keras 3.15.1's public API, generated once by
tests/tf_reference/keras3_names.py from the keras/api tree. The floor
(tests/keras3_coverage_floor.json) lists the names tapeviz implements; a name
in it that goes missing fails the test. Run with ``-s`` to see the coverage
per namespace; ``python -m tests.keras.test_keras3_coverage`` prints it too
(``--write-floor`` records the current set as the new floor).
"""

import json
import pathlib

import pytest

import tapeviz.keras

HERE = pathlib.Path(__file__).resolve().parents[1]
NAMES = json.loads((HERE / "keras3_public_names.json").read_text())["namespaces"]
FLOOR = json.loads((HERE / "keras3_coverage_floor.json").read_text())

_MISSING = object()


def resolve(namespace):
    """tapeviz.keras's object for a Keras namespace ("keras.ops.nn"), or None if it has none."""
    obj = tapeviz.keras
    for part in namespace.split(".")[1:]:
        obj = getattr(obj, part, _MISSING)
        if obj is _MISSING:
            return None
    return obj


def coverage():
    """{namespace: (implemented names, all names)} for every Keras 3 namespace."""
    table = {}
    for namespace, names in NAMES.items():
        obj = resolve(namespace)
        found = [n for n in names if obj is not None and getattr(obj, n, _MISSING) is not _MISSING]
        table[namespace] = (found, names)
    return table


def report(table):
    lines = [f"{'namespace':40s} {'have':>5s} {'of':>5s}"]
    for namespace, (found, names) in table.items():
        if names:
            lines.append(f"{namespace:40s} {len(found):5d} {len(names):5d}")
    total = sum(len(f) for f, _ in table.values()), sum(len(n) for _, n in table.values())
    lines.append(f"{'all':40s} {total[0]:5d} {total[1]:5d}")
    return "\n".join(lines)


def test_the_implemented_names_are_at_least_the_recorded_floor():
    table = coverage()
    print("\n" + report(table))
    lost = {ns: sorted(set(names) - set(table[ns][0])) for ns, names in FLOOR.items()}
    lost = {ns: names for ns, names in lost.items() if names}
    assert not lost, f"Keras 3 names that tapeviz.keras had and lost: {lost}"


@pytest.mark.parametrize("namespace", ["keras.ops", "keras.ops.numpy", "keras.ops.nn", "keras.random"])
def test_a_namespace_in_the_floor_is_importable_as_a_module(namespace):
    import importlib

    if namespace not in FLOOR:
        pytest.skip(f"{namespace} is not implemented yet")
    module = importlib.import_module("tapeviz." + namespace)
    assert module is resolve(namespace)


def write_floor():
    """Record what is implemented now as the floor (run after adding names)."""
    floor = {ns: found for ns, (found, _) in coverage().items() if found}
    path = HERE / "keras3_coverage_floor.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(floor, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    import sys

    if "--write-floor" in sys.argv:
        write_floor()
    print(report(coverage()))
