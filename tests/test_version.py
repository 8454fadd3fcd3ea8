"""tf.version.VERSION: where TF code prints TensorFlow's version, tapeviz's, the one the package is built with."""

import pathlib
import re

import tapeviz as tf


def test_version_is_the_packages():
    pyproject = (pathlib.Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    built = re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    assert tf.version.VERSION == tf.__version__ == built
