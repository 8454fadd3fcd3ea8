"""Run a TensorFlow / Keras guide's code cells on tapeviz (or on TensorFlow) and report cell by cell.

    python tools/run_guide.py GUIDE [--impl tapeviz|tf] [--json OUT] [--quiet]
    python tools/run_guide.py --compare TAPEVIZ.json TF.json

GUIDE is a notebook (``.ipynb``: tensorflow/docs) or a keras-io guide
(``.py``: code between top-level string "prose" blocks). Get them from
github.com/tensorflow/docs (site/en/guide/basic_training_loops.ipynb, ...)
and github.com/keras-team/keras-io (guides/writing_a_custom_training_loop_in_tensorflow.py, ...).

With ``--impl tapeviz`` (the default) each cell is rewritten so that
``import tensorflow as tf`` imports tapeviz and ``keras`` is
``tapeviz.keras``; with ``--impl tf`` (run it with a Python that has
TensorFlow) the cells run as written. Both runs make the same substitutions
for what needs the internet, so their outputs can be compared:

- ``keras.datasets.mnist.load_data()`` (also through a name: ``mnist.load_data()``) -> a synthetic MNIST of the same
  shapes and dtypes (12,000 training and 2,000 test images, class-dependent
  patterns, from a seeded NumPy generator);
- ``keras.utils.get_file('mnist.npz', ...)`` (tutorials/load_data/numpy) -> no
  substitution: Keras's cache holds a ``mnist.npz`` of that synthetic MNIST, which
  each implementation's own ``get_file`` finds there;
- ``keras.datasets.fashion_mnist.load_data()`` -> Keras's own cache files
  (the four gzipped IDX files of ``datasets/fashion-mnist``) written with
  synthetic images (the synthetic MNIST's) in a temporary ``KERAS_HOME``, so
  each implementation's own loader reads them;
- ``pd.read_csv(url, ...)`` of the UCI auto-mpg file (the regression
  tutorial, guide/core/quickstart_core) -> 398 synthetic rows in that file's
  format (whitespace separated, ``?`` for six missing horsepowers, the car
  name after a tab); of the UCI breast-cancer file ``wdbc.data``
  (guide/core/logistic_regression_core) -> 569 synthetic rows in its format
  (id, ``M``/``B``, 30 positive features, larger for ``M``; no header);
- ``requests.get(url, stream=True).raw`` of an image (guide/core/matrix_core)
  -> a synthetic 192 x 256 RGB photo as JPEG bytes (Pillow writes it; matplotlib's
  ``imread`` reads it);
- ``tensorflow_datasets`` (``tfds.load('penguins/...')``) -> a synthetic
  penguins set: 4 float features, 3 classes, 344 rows; ``tfds.load('mnist')``
  -> that synthetic MNIST as (28, 28, 1) images (every split, a dict, when no
  ``split`` is given, as tfds; a sliced split such as ``'train[10000:]'``,
  ``batch_size`` and ``batch_size=-1`` for whole tensors, as guide/core/mlp_core
  loads it);
- shell (``!pip``) and magic (``%``) lines are dropped; matplotlib draws to
  the Agg backend; files are written to a temporary directory.

The guides import pandas, matplotlib, seaborn and scikit-learn: both runs need them
importable, the same versions in both (``pip install --target DIR`` once, then
``PYTHONPATH=DIR`` for both runs), or those cells fail in both.

A cell's last expression is printed as Jupyter would show it. Each cell's
status is ok / FAIL (with the error); ``--compare`` lists the cells whose
printed output differs between two runs (random cells differ by design).
"""

import argparse
import ast
import contextlib
import functools
import io
import json
import linecache
import os
import re
import sys
import tempfile
import time
import traceback

# -- reading the guide -------------------------------------------------------------------


def extract_cells(path):
    """The guide's code cells, in order, as strings."""
    if path.endswith(".ipynb"):
        with open(path, encoding="utf-8") as f:
            notebook = json.load(f)
        return ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    with open(path, encoding="utf-8") as f:
        source = f.read()
    return _split_keras_io(source)


def _split_keras_io(source):
    """keras-io guides: code separated by top-level string expressions (the prose)."""
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    cells, start = [], 0
    for node in tree.body:
        is_prose = (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        )
        if is_prose:
            cells.append("".join(lines[start : node.lineno - 1]))
            start = node.end_lineno
    cells.append("".join(lines[start:]))
    return [c.strip("\n") for c in cells if c.strip()]


# -- rewriting a cell ------------------------------------------------------------------------

_TO_TAPEVIZ = [
    (r"^(\s*)import tensorflow as tf\b", r"\1import tapeviz as tf"),
    (r"^(\s*)from tensorflow import keras\b", r"\1from tapeviz import keras"),
    (r"^(\s*)from tensorflow\.keras import (\w+)", r"\1from tapeviz.keras import \2"),
    (r"^(\s*)from tensorflow\.keras\.([\w.]+) import", r"\1from tapeviz.keras.\2 import"),
    (r"^(\s*)import tensorflow\.([\w.]+) as (\w+)", r"\1import tapeviz.\2 as \3"),  # tensorflow.experimental.numpy
    (r"^(\s*)from tensorflow\.([\w.]+) import", r"\1from tapeviz.\2 import"),
    (r"^(\s*)import keras\s*$", r"\1from tapeviz import keras"),
    (r"^(\s*)from keras import (\w+)", r"\1from tapeviz.keras import \2"),
]

_SUBSTITUTIONS = [
    # (pattern, replacement, why)
    (r"\b(?:tf\.)?keras\.datasets\.mnist\.load_data\(\)", "_guide_mnist()", "MNIST download -> synthetic MNIST"),
    (
        r"\bmnist\.load_data\(\)",
        "_guide_mnist()",
        "MNIST download -> synthetic MNIST",
    ),  # mnist = tf.keras.datasets.mnist
    (
        r"\bpd\.read_csv\(url\b",
        "pd.read_csv(_guide_csv(url)",
        "CSV download -> synthetic rows in the file's format",
    ),  # url = '.../auto-mpg/auto-mpg.data' (regression, quickstart_core) or '.../wdbc.data' (logistic_regression_core)
    (
        r"\brequests\.get\((\w+), stream=True\)\.raw",
        r"_guide_image_file(\1)",
        "image download -> a synthetic JPEG",
    ),  # guide/core/matrix_core: img_path = requests.get(img_link, stream=True).raw
    (
        r"^(\s*)import tensorflow_datasets as tfds\s*$",
        r"\1tfds = _guide_tfds",
        "tensorflow_datasets -> synthetic penguins",
    ),
]


def rewrite(cell, impl, notebook=True):
    """(code to run, list of substitutions made) for one cell."""
    made = []
    lines = []
    for line in cell.splitlines():
        if notebook and line.startswith(("!", "%")):  # IPython shell and magic lines (unindented, notebooks only)
            made.append(f"dropped shell/magic line: {line.strip()}")
            continue
        lines.append(line)
    code = "\n".join(lines)
    for pattern, replacement, why in _SUBSTITUTIONS:
        code, count = re.subn(pattern, replacement, code, flags=re.M)
        if count:
            made.append(why)
    if impl == "tapeviz":
        for pattern, replacement in _TO_TAPEVIZ:
            code = re.sub(pattern, replacement, code, flags=re.M)
    return code, made


# -- the offline stand-ins (the same in both runs) -------------------------------------------

PRELUDE = r'''
import numpy as _np

def _guide_mnist(n_train=12000, n_test=2000, seed=0):
    """Synthetic MNIST: uint8 28x28 images whose bright bar's row depends on the label."""
    rng = _np.random.default_rng(seed)
    def make(n):
        labels = rng.integers(0, 10, size=n).astype(_np.uint8)
        images = rng.integers(0, 60, size=(n, 28, 28)).astype(_np.uint8)
        for digit in range(10):
            rows = labels == digit
            images[rows, 2 + 2 * digit:4 + 2 * digit, 4:24] = 250
        return images, labels
    return make(n_train), make(n_test)

def _guide_csv(url):
    """The stand-in for a CSV file the guide downloads, chosen by its URL."""
    if url.endswith("auto-mpg.data"):
        return _guide_auto_mpg()
    if url.endswith("wdbc.data"):
        return _guide_wdbc()
    raise ValueError(f"the guide runner has no stand-in for {url}")

def _guide_wdbc(rows=569, seed=0):
    """The UCI breast-cancer (wdbc) file's format: id, M/B, 30 positive features (larger when M), no header."""
    import io as _io
    rng = _np.random.default_rng(seed)
    scale = _np.array([14, 19, 92, 655, 0.1, 0.1, 0.09, 0.05, 0.18, 0.06] * 3) * _np.repeat([1.0, 0.1, 1.3], 10)
    lines = []
    for i in range(rows):
        malignant = rng.random() < 0.37
        values = scale * (1.0 + (0.35 if malignant else -0.1) + rng.normal(0, 0.15, size=30))
        row = [str(842302 + 97 * i), "M" if malignant else "B"] + [f"{v:.5g}" for v in _np.abs(values)]
        lines.append(",".join(row))
    return _io.StringIO("\n".join(lines) + "\n")

def _guide_auto_mpg(rows=398, seed=0):
    """The UCI auto-mpg file's format with synthetic cars (MPG falls with weight and horsepower)."""
    import io as _io
    rng = _np.random.default_rng(seed)
    lines = []
    for i in range(rows):
        cylinders = int(rng.choice([4, 6, 8]))
        displacement = 40.0 * cylinders + rng.normal(0, 15)
        horsepower = 12.0 * cylinders + rng.normal(0, 8) + 20
        weight = 400.0 * cylinders + rng.normal(0, 150) + 500
        acceleration = 22.0 - horsepower / 20 + rng.normal(0, 1)
        year, origin = int(rng.integers(70, 83)), int(rng.integers(1, 4))
        mpg = 48.0 - weight / 180 - horsepower / 25 + (year - 70) * 0.6 + rng.normal(0, 1.5)
        hp = "?" if i % 66 == 5 else f"{horsepower:.1f}"
        lines.append(f"{mpg:.1f}   {cylinders}   {displacement:.1f}      {hp}      {weight:.0f}.      "
                     f"{acceleration:.1f}   {year}  {origin}\t\"car {i}\"")
    return _io.StringIO("\n".join(lines) + "\n")

def _guide_image_file(url, height=192, width=256, seed=0):
    """A synthetic RGB photo as JPEG bytes (smooth gradients, a disc, noise), for an image the guide downloads."""
    import io as _io
    from PIL import Image as _Image
    rng = _np.random.default_rng(seed)
    rows, cols = _np.mgrid[0:height, 0:width]
    disc = ((rows - height / 2) ** 2 + (cols - width / 3) ** 2 < (height / 4) ** 2) * 90.0
    red = 80 + 120 * cols / width + disc
    green = 60 + 150 * rows / height
    blue = 140 - 60 * cols / width + 40 * _np.sin(rows / 9.0)
    pixels = _np.stack([red, green, blue], axis=-1) + rng.normal(0, 6, size=(height, width, 3))
    out = _io.BytesIO()
    _Image.fromarray(_np.clip(pixels, 0, 255).astype(_np.uint8)).save(out, format="JPEG", quality=95)
    out.seek(0)
    return out

class _GuideInfo:
    features = "FeaturesDict(features=Tensor(shape=(4,), dtype=float32), species=ClassLabel(num_classes=3))"

class _GuideTfds:
    """A stand-in for tensorflow_datasets: 'penguins/processed' as 344 synthetic rows."""
    __version__ = "offline-stand-in"

    @staticmethod
    def _rows(seed=0):
        rng = _np.random.default_rng(seed)
        labels = rng.integers(0, 3, size=344).astype(_np.int64)
        centers = _np.array([[0.3, 0.6, 0.3, 0.2], [0.5, 0.3, 0.5, 0.4], [0.7, 0.5, 0.8, 0.8]], _np.float32)
        features = (centers[labels] + rng.normal(0, 0.08, size=(344, 4))).astype(_np.float32)
        return features, labels

    def load(self, name, split=None, as_supervised=False, with_info=False, batch_size=None):
        import sys as _sys
        tf = _sys.modules.get("tapeviz") or _sys.modules["tensorflow"]
        if name.split("/")[0] == "mnist":
            result = self._mnist(tf, split, as_supervised, batch_size)
            return (result, _GuideInfo()) if with_info else result
        features, labels = self._rows()
        def dataset(rows):
            if as_supervised:
                return tf.data.Dataset.from_tensor_slices((features[rows], labels[rows]))
            return tf.data.Dataset.from_tensor_slices({"features": features[rows], "species": labels[rows]})
        cut = len(labels) // 5
        if isinstance(split, list):
            result = [dataset(slice(0, cut)), dataset(slice(cut, None))]
        else:
            result = dataset(slice(None))
        return (result, _GuideInfo()) if with_info else result

    @staticmethod
    def _mnist(tf, split, as_supervised, batch_size=None):
        """'mnist' as tfds gives it: (28, 28, 1) uint8 images, int64 labels; every split (a dict) when split is None.

        A split may be sliced ('train[10000:]', 'train[:1500]'); ``batch_size`` batches the
        dataset, and -1 gives the whole split as tensors instead, as tfds does.
        """
        import re as _re
        (x_train, y_train), (x_test, y_test) = _guide_mnist()
        arrays = {"train": (x_train, y_train), "test": (x_test, y_test)}
        def dataset(name):
            found = _re.fullmatch(r"(\w+)(?:\[(\d*):(\d*)\])?", name)
            images, labels = arrays[found.group(1)]
            rows = slice(int(found.group(2) or 0), int(found.group(3)) if found.group(3) else None)
            images, labels = images[rows][..., None], labels[rows].astype(_np.int64)
            if batch_size == -1:
                images, labels = tf.constant(images), tf.constant(labels)
                return (images, labels) if as_supervised else {"image": images, "label": labels}
            if as_supervised:
                result = tf.data.Dataset.from_tensor_slices((images, labels))
            else:
                result = tf.data.Dataset.from_tensor_slices({"image": images, "label": labels})
            return result.batch(batch_size) if batch_size else result
        if split is None:
            return {name: dataset(name) for name in arrays}
        return [dataset(s) for s in split] if isinstance(split, list) else dataset(split)

    @staticmethod
    def as_dataframe(dataset, info=None):
        return "\n".join(str(row) for row in dataset)

_guide_tfds = _GuideTfds()
'''


def write_keras_cache(home, seed=1):
    """Keras's cache as its downloads leave it, with synthetic data: ``home/datasets/fashion-mnist/*.gz``
    and ``home/datasets/mnist.npz``.

    The files have the original formats (gzipped IDX: a big-endian magic, the sizes, then uint8
    bytes; an ``.npz`` of ``x_train``, ``y_train``, ``x_test``, ``y_test``), so TensorFlow's and
    tapeviz's own ``load_data()`` and ``keras.utils.get_file`` find them. Fashion-MNIST: 12,000 and
    2,000 images from the synthetic MNIST generator (another seed), labels 0-9; ``mnist.npz``: the
    synthetic MNIST itself (what ``_guide_mnist()`` returns).
    """
    import gzip

    import numpy as np

    namespace = {}
    exec(PRELUDE, namespace)
    (mnist_x_train, mnist_y_train), (mnist_x_test, mnist_y_test) = namespace["_guide_mnist"]()
    os.makedirs(os.path.join(home, "datasets"), exist_ok=True)
    np.savez(
        os.path.join(home, "datasets", "mnist.npz"),
        x_train=mnist_x_train,
        y_train=mnist_y_train,
        x_test=mnist_x_test,
        y_test=mnist_y_test,
    )
    (x_train, y_train), (x_test, y_test) = namespace["_guide_mnist"](seed=seed)
    folder = os.path.join(home, "datasets", "fashion-mnist")
    os.makedirs(folder, exist_ok=True)
    files = {
        "train-labels-idx1-ubyte.gz": y_train,
        "train-images-idx3-ubyte.gz": x_train,
        "t10k-labels-idx1-ubyte.gz": y_test,
        "t10k-images-idx3-ubyte.gz": x_test,
    }
    for name, array in files.items():
        header = (0x0800 + array.ndim).to_bytes(4, "big") + b"".join(n.to_bytes(4, "big") for n in array.shape)
        with gzip.open(os.path.join(folder, name), "wb") as f:
            f.write(header + array.astype("uint8").tobytes())
    return home


# -- running ------------------------------------------------------------------------------------


def run_cell(code, namespace, filename="<cell>"):
    """Run one cell; print its last expression's value, as Jupyter does.

    As IPython, the cell's source is registered in ``linecache`` under its own file name, so
    ``inspect.getsource`` (AutoGraph, ``tf.autograph.to_code``) finds the functions it defines.
    """
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    tree = ast.parse(code)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, filename, "exec"), namespace)
    if last is not None:
        value = eval(compile(last, filename, "eval"), namespace)
        if value is not None:
            print(repr(value))


def run_guide(path, impl="tapeviz", quiet=False, prelude=None, after_cell=None):
    """Every code cell's result, in order; ``after_cell(results)`` is called after each one."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    cells = extract_cells(path)
    namespace = {"__name__": "__guide__"}
    exec(PRELUDE, namespace)
    if prelude:  # e.g. stand-ins for APIs another branch is building
        with open(prelude, encoding="utf-8") as f:
            exec(f.read(), namespace)
    results = []
    workdir = tempfile.mkdtemp(prefix="guide-")
    os.environ["KERAS_HOME"] = write_keras_cache(os.path.join(workdir, ".keras"))  # before keras is imported
    here = os.getcwd()
    os.chdir(workdir)
    try:
        for index, cell in enumerate(cells):
            code, made = rewrite(cell, impl, notebook=path.endswith(".ipynb"))
            out = io.StringIO()
            started = time.perf_counter()
            status, error = "ok", None
            try:
                with contextlib.redirect_stdout(out):
                    run_cell(code, namespace, f"<cell {index}>")
            except Exception as exc:  # a failed cell is reported, and the guide goes on
                status = "FAIL"
                error = f"{type(exc).__name__}: {exc}"
                if not quiet:
                    error += "\n" + "".join(traceback.format_exception(exc)[-3:])
            results.append(
                {
                    "cell": index,
                    "status": status,
                    "error": error,
                    "substitutions": made,
                    "stdout": out.getvalue(),
                    "seconds": round(time.perf_counter() - started, 2),
                    "code": code,
                }
            )
            if after_cell is not None:
                after_cell(results)
    finally:
        os.chdir(here)
    return results


def write_json(path, results):
    """The results as JSON, written atomically (a temporary file, then os.replace)."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w") as f:
        json.dump(results, f, indent=1)
    os.replace(temporary, path)


def report(path, results, stream=sys.stdout):
    ok = sum(r["status"] == "ok" for r in results)
    for r in results:
        head = f"[{r['cell']:2d}] {r['status']:4s} {r['seconds']:6.2f}s"
        if r["substitutions"]:
            head += "  (" + "; ".join(r["substitutions"]) + ")"
        print(head, file=stream)
        if r["status"] != "ok":
            first_line = r["code"].strip().splitlines()[0] if r["code"].strip() else ""
            print(f"      {first_line[:90]}", file=stream)
            for line in r["error"].splitlines()[:8]:
                print(f"      ! {line[:200]}", file=stream)
    print(f"SUMMARY {os.path.basename(path)}: {ok}/{len(results)} cells ran, {len(results) - ok} failed", file=stream)


def compare(mine, theirs, stream=sys.stdout):
    """Cells whose status or printed output differ between two runs' JSON files."""
    with open(mine) as f:
        a = json.load(f)
    with open(theirs) as f:
        b = json.load(f)
    differ = 0
    for x, y in zip(a, b):
        if x["status"] != y["status"] or x["stdout"] != y["stdout"]:
            differ += 1
            print(f"--- cell {x['cell']}: {x['status']} vs {y['status']}", file=stream)
            for line in x["stdout"].splitlines()[:6]:
                print(f"  < {line[:150]}", file=stream)
            for line in y["stdout"].splitlines()[:6]:
                print(f"  > {line[:150]}", file=stream)
    print(f"{differ} of {len(a)} cells differ", file=stream)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("guide", nargs="?")
    parser.add_argument("--impl", choices=["tapeviz", "tf"], default="tapeviz")
    parser.add_argument("--json", help="write the per-cell results here")
    parser.add_argument("--quiet", action="store_true", help="errors without tracebacks")
    parser.add_argument("--compare", nargs=2, metavar=("MINE", "THEIRS"))
    parser.add_argument("--prelude", help="a Python file run before the first cell (stand-ins, patches)")
    args = parser.parse_args(argv)
    if args.compare:
        compare(*args.compare)
        return 0
    if not args.guide:
        parser.error("give a guide (.ipynb or keras-io .py) or --compare A B")
    path = os.path.abspath(args.guide)
    save = None
    if args.json:  # after every cell, so a run stopped by a time limit keeps the cells it finished
        out = os.path.abspath(args.json)
        save = functools.partial(write_json, out)
    results = run_guide(path, args.impl, args.quiet, args.prelude, after_cell=save)
    report(path, results)
    return 0 if all(r["status"] == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
