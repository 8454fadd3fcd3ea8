"""Reading a student's answer: plain numbers out of tensors, and the wrong kinds refused.

A checker raises :class:`Refused` with a message for the student when the
answer is of the wrong kind (text where a number is asked, a number where
code is asked); ``check`` shows that message as the verdict.
"""

import numpy as np


class Refused(Exception):
    """An answer of the wrong kind; the message says what kind is asked."""


def plain(value):
    """A Tensor/Variable/array/list -> nested Python floats (or None); anything else as it is."""
    if value is None:
        return None
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    array = np.asarray(value)
    if array.dtype.kind in "biuf":
        return array.astype(float).tolist()
    return value


def describe(value):
    if value is None:
        return "None"
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value)


def refuse_text(value):
    """Refuse text (``"14"``, ``"wb"``) anywhere inside an answer that should hold numbers."""
    if isinstance(value, (str, bytes)):
        raise Refused(f"got the text {value!r}: answer with the number itself, not a string.")
    if isinstance(value, bool):
        raise Refused(f"got {value}: answer with a number, not True/False.")
    if isinstance(value, dict):
        for item in value.values():
            refuse_text(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            refuse_text(item)
    elif callable(value) and not hasattr(value, "numpy"):
        raise Refused("got a function: this exercise asks for a value (what your code computed), not the code.")


def number(value):
    """A single finite number from a Python/NumPy/tapeviz scalar; text and lists are refused."""
    refuse_text(value)
    if isinstance(value, bool):
        raise Refused(f"got {value}: answer with a number, not True/False.")
    array = np.asarray(plain(value), dtype=float)
    if array.size != 1:
        raise Refused(f"expected one number, got {array.size} values.")
    return float(array.reshape(()))


def numbers(value):
    """An array of floats from tensors/lists; text refused."""
    refuse_text(value)
    if value is None:
        raise Refused("got None: is the source watched (a Variable, or tape.watch)?")
    return np.asarray(plain(value), dtype=float)


def code(answer, example):
    """Refuse anything but a function where the exercise asks the student to write one."""
    if callable(answer) and not hasattr(answer, "numpy"):
        return answer
    raise Refused(
        f"got {describe(plain(answer)) if not isinstance(answer, str) else repr(answer)}: this exercise asks "
        f"for code. Write the function and answer with it itself ({example}); the checker runs it "
        "on inputs of its own, so a typed number cannot pass."
    )


def same(answer, expected, tolerance):
    """Whether two plain answers agree (None only with None; numbers within ``tolerance``)."""
    if expected is None or answer is None:
        return answer is expected
    if isinstance(expected, dict):
        return (
            isinstance(answer, dict)
            and answer.keys() == expected.keys()
            and all(same(answer[k], expected[k], tolerance) for k in expected)
        )
    if isinstance(expected, (list, tuple)) and any(e is None or isinstance(e, dict) for e in expected):
        return (
            isinstance(answer, (list, tuple))
            and len(answer) == len(expected)
            and all(same(a, e, tolerance) for a, e in zip(answer, expected))
        )
    if isinstance(expected, (bool, str)):
        return answer == expected
    try:
        a = np.asarray(answer, dtype=float)
        e = np.asarray(expected, dtype=float)
    except (TypeError, ValueError):
        return False
    if a.shape != e.shape:
        return False
    return bool(np.allclose(a, e, rtol=tolerance, atol=tolerance, equal_nan=True))
