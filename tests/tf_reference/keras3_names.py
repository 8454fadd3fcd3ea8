"""Write tests/keras3_public_names.json: Keras 3's public names, per namespace.

Read (never imported) from the installed Keras 3 package's generated API
files, keras/<namespace>/__init__.py (keras-team/keras's keras/api/ tree as
pip ships it): every ``from X import Y as Z`` gives the public name Z.
A name that is itself a namespace is listed as a namespace, not a name.

Run once with an environment holding Keras 3 (here Keras 3.15.1 on TF 2.21):

    /tmp/tfenv/bin/python tests/tf_reference/keras3_names.py
"""

import ast
import json
import pathlib
import sys

OUT = pathlib.Path(__file__).resolve().parent.parent / "keras3_public_names.json"
SKIPPED = ("src", "_tf_keras")  # the implementation and the tf.keras 2 shim, not Keras 3's API


def keras_root():
    import importlib.util

    spec = importlib.util.find_spec("keras")  # finds the package without importing it
    return pathlib.Path(spec.origin).parent


def names_in(init_file):
    tree = ast.parse(init_file.read_text())
    names = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            names += [alias.asname or alias.name for alias in node.names]
    return names


def main():
    root = keras_root()
    table = {}
    for init_file in sorted(root.rglob("__init__.py")):
        parts = init_file.relative_to(root).parts[:-1]
        if parts and parts[0] in SKIPPED:
            continue
        namespace = ".".join(("keras",) + parts)
        table[namespace] = names_in(init_file)
    for namespace, names in table.items():
        table[namespace] = sorted(n for n in names if f"{namespace}.{n}" not in table and not n.startswith("_"))
    import keras

    data = {"keras_version": keras.__version__, "namespaces": table}
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{sum(map(len, table.values()))} names in {len(table)} namespaces -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
