"""Every public name of TF 2.21 is in tapeviz or on the TF map, with the reason (issue 32).

The names are TF 2.21's own list (tests/tf_reference/tf_api_names.json, written with TF
installed by tests/tf_reference/tf_api_names.py; tf.keras's from tests/keras3_public_names.json).
tools/tf_map.py sorts each one (available, different, not available) and writes that part of
docs/tf-map.md; these tests read the page itself: a name tapeviz lacks must be listed there with
a reason, a listed name must really be absent, and a listed keyword really not taken.
"""

import inspect
import json
import pathlib
import re
import sys

import numpy as np
import pytest

import tapeviz as tf

ROOT = next(p for p in pathlib.Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
sys.path.insert(0, str(ROOT / "tools"))
import tf_map  # noqa: E402

STORED = json.loads(tf_map.TF_NAMES.read_text())
PAGE = tf_map.PAGE.read_text(encoding="utf-8")
REGENERATE = "run `PYTHONPATH=. python tools/tf_map.py` and commit docs/tf-map.md"


@pytest.fixture(scope="module")
def sorted_names():
    return tf_map.classify()


def _generated():
    assert tf_map.BEGIN in PAGE and tf_map.END in PAGE, "docs/tf-map.md lost its tf-names markers"
    return PAGE.split(tf_map.BEGIN, 1)[1].split(tf_map.END, 1)[0]


def _listed_not_available():
    """{namespace: set of names} as the page lists them; a folded family maps to "all"."""
    listed, namespace = {}, None
    part = _generated().split("\n## ", 1)[0]
    for line in part.splitlines():
        if heading := re.fullmatch(r"#### `(tf[\w.]*)`", line):
            namespace = heading.group(1)
        elif line.startswith("- **"):
            kind = re.match(r"- \*\*(.+?)\*\*, ", line).group(1)
            assert kind in (tf_map.OUT_OF_SCOPE, tf_map.NOT_YET), line
            names = line[line.index("`") :]
            if re.search(r": all \d+ names, here and in its submodules ", line):
                for sub in re.findall(r"`([\w.]+)`", names):
                    listed[f"{namespace}.{sub}"] = "all"
                listed[namespace] = "all"
            else:
                listed.setdefault(namespace, set()).update(re.findall(r"`(\w+)`", names))
    return listed


def _listed_parameters():
    part = _generated().split("\n## ", 1)[1]
    rows = re.findall(r"^\| `(tf[\w.]+)` \| `(\w+)` \| (.+) \|$", part, flags=re.M)
    assert rows, "the keyword table is missing"
    return rows


def test_the_stored_list_is_tf_2_21s():
    assert STORED["tensorflow"] == "2.21.0" and STORED["keras"] == "3.15.1"
    namespaces = STORED["namespaces"]
    assert len(namespaces["tf"]) == 308  # TF 2.21's top level, its submodules included
    for walked in ("tf.math.special", "tf.nn.experimental", "tf.linalg.experimental", "tf.random.experimental"):
        assert walked in namespaces
    assert "tf.data.experimental.service" in namespaces
    assert namespaces["tf"]["reduce_sum"] == ["input_tensor", "axis", "keepdims", "name"]
    assert STORED["methods"]["tf.Variable"]["assign"] == ["value", "use_locking", "name", "read_value"]
    keras_names, _, _ = tf_map.tf_names()
    assert "tf.keras.saving" not in keras_names  # TF 2.21's tf.keras has no saving
    assert "ImageDataGenerator" in keras_names["tf.keras.preprocessing.image"]
    assert keras_names["tf.keras.layers"]["Dense"][:2] == ["units", "activation"]  # Keras's signatures, stored


def test_the_map_is_current():
    wanted = tf_map.current_page(PAGE, tf_map.render())
    assert wanted == PAGE, f"docs/tf-map.md's generated part is not current: {REGENERATE}"


def test_every_tf_name_is_available_or_listed_on_the_map(sorted_names):
    table, different_methods = sorted_names
    listed = _listed_not_available()
    unlisted = []
    for namespace, row in table.items():
        for name in row["missing"]:
            entry = listed.get(namespace, set())
            if entry != "all" and name not in entry:
                unlisted.append(f"{namespace}.{name}")
    assert not unlisted, f"TF names tapeviz lacks that the map does not list: {unlisted[:20]} ({REGENERATE})"
    taken = {(path, parameter) for path, parameter, _ in _listed_parameters()}
    expected = {(f"{ns}.{n}", p) for ns, row in table.items() for n, params in row["different"].items() for p in params}
    expected |= {(path, p) for path, params in different_methods.items() for p in params}
    assert expected <= taken, f"keywords tapeviz does not take, not on the map: {sorted(expected - taken)}"


def test_every_name_listed_as_not_available_is_absent_from_tapeviz():
    names, _, _ = tf_map.tf_names()
    present = []
    for namespace, entry in _listed_not_available().items():
        for name in names.get(namespace, {}) if entry == "all" else entry:
            if tf_map.resolve(f"{namespace}.{name}") is not tf_map._MISSING:
                present.append(f"{namespace}.{name}")
    assert not present, f"listed as not available, but tapeviz has them: {present} ({REGENERATE})"


def test_every_keyword_listed_as_not_taken_is_not_taken():
    for path, parameter, why in _listed_parameters():
        obj = tf_map.resolve(path)
        assert obj is not tf_map._MISSING, path
        assert tf_map.untaken_parameters([parameter], obj) == [parameter], f"{path} takes {parameter}= now"
        assert why.strip(), f"{path}({parameter}=): no reason"


def test_name_is_taken_wherever_tf_takes_it(sorted_names):
    table, different_methods = sorted_names
    ops = {ns: row for ns, row in table.items() if not ns.startswith("tf.keras")}  # Keras's name= is no op name
    lacking = [f"{ns}.{n}" for ns, row in ops.items() for n, params in row["different"].items() if "name" in params]
    lacking += [path for path, params in different_methods.items() if "name" in params]
    assert not lacking, f"TF takes name= here and tapeviz does not: {lacking}"


def test_the_reasons_are_written_not_defaulted():
    for path, (kind, text) in tf_map.REASONS.items():
        assert kind in (tf_map.OUT_OF_SCOPE, tf_map.NOT_YET) and "`" not in text, path
    with pytest.raises(KeyError, match="no reason"):
        tf_map.reason("keras.not_a_tf_namespace")


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_variable_updates_take_tfs_keywords(method):
    v = tf.Variable([1.0, 2.0])
    returned = getattr(v, method)(tf.constant([1.0, 1.0]), use_locking=True, name="step", read_value=True)
    assert returned is v
    assert getattr(v, method)([0.5, 0.5], use_locking=False, name=None, read_value=False) is None
    want = {"assign": [0.5, 0.5], "assign_add": [2.5, 3.5], "assign_sub": [-0.5, 0.5]}[method]
    np.testing.assert_allclose(v.numpy(), want)
    assert (
        list(inspect.signature(getattr(tf.Variable, method)).parameters)[1:]
        == (STORED["methods"]["tf.Variable"][method])
    )


def test_no_reason_is_kept_for_a_name_tapeviz_now_has():
    names, _, _ = tf_map.tf_names()
    stale = []
    for path in tf_map.REASONS:
        namespace, _, name = path.rpartition(".")
        if name in names.get(namespace, {}) and path not in names and tf_map.resolve(path) is not tf_map._MISSING:
            stale.append(path)
    assert not stale, f"tapeviz has these now: remove them from tools/tf_map.py's REASONS: {stale}"
