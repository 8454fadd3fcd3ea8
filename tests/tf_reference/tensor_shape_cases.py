"""What TF 2.21's TensorShape does, case by case: run the same way by TF (tensor_shape_reference.py) and by tapeviz
(tests/core/test_tensor_shape.py). Each case is a function of (tf, S, shapes) giving a value, or raising; its
outcome is recorded as [type name, repr] or ["raises", exception type name, message]. Nothing here imports
TensorFlow or tapeviz."""

import copy
import json
import pickle

import numpy as np


def _shapes(tf):
    return {"m": tf.zeros((2, 3)).shape, "v": tf.zeros((15,)).shape, "s": tf.zeros(()).shape}


# name: a function of (tf, S = tf.TensorShape, x = the shapes of a (2, 3), a (15,) and a scalar tensor)
CASES = {
    # printing
    "str": lambda tf, S, x: str(x["m"]),
    "str_rank_1": lambda tf, S, x: str(x["v"]),
    "str_scalar": lambda tf, S, x: str(x["s"]),
    "repr": lambda tf, S, x: repr(x["m"]),
    "percent_one": lambda tf, S, x: "%s" % x["v"],  # noqa: UP031 - how the guides print shapes
    "percent_two": lambda tf, S, x: "%s %s" % x["m"],  # noqa: UP031
    "percent_in_tuple": lambda tf, S, x: "%s" % (x["m"],),  # noqa: UP031
    "f_string": lambda tf, S, x: f"{x['m']}",
    "format_empty_spec": lambda tf, S, x: format(x["m"], ""),
    "str_unknown_rank": lambda tf, S, x: str(S(None)),
    "repr_unknown_rank": lambda tf, S, x: repr(S(None)),
    "str_unknown_size": lambda tf, S, x: str(S([None, 3])),
    "str_one_unknown": lambda tf, S, x: str(S([None])),
    "repr_unknown_size": lambda tf, S, x: repr(S([None, 3])),
    "variable_shape": lambda tf, S, x: repr(tf.Variable([1.0, 2.0]).shape),
    # equality and hashing
    "eq_tuple": lambda tf, S, x: x["m"] == (2, 3),
    "eq_list": lambda tf, S, x: x["m"] == [2, 3],
    "eq_shape": lambda tf, S, x: x["m"] == S([2, 3]),
    "tuple_eq": lambda tf, S, x: (2, 3) == x["m"],
    "list_eq": lambda tf, S, x: [2, 3] == x["m"],
    "ne_tuple": lambda tf, S, x: x["m"] != (2, 3),
    "ne_other": lambda tf, S, x: x["m"] != (3, 2),
    "eq_int": lambda tf, S, x: x["v"] == 15,
    "eq_str": lambda tf, S, x: x["m"] == "ab",
    "eq_none": lambda tf, S, x: x["m"] == None,  # noqa: E711 - the comparison is the case
    "eq_array": lambda tf, S, x: x["m"] == np.array([2, 3]),
    "eq_unknown_sizes": lambda tf, S, x: S([None, 3]) == S([None, 3]),
    "eq_unknown_sizes_tuple": lambda tf, S, x: S([None, 3]) == (None, 3),
    "eq_unknown_sizes_list": lambda tf, S, x: S([None, 3]) == [None, 3],
    "eq_unknown_rank": lambda tf, S, x: S(None) == S(None),
    "eq_unknown_rank_empty": lambda tf, S, x: S(None) == (),
    "hash_as_tuple": lambda tf, S, x: hash(x["m"]) == hash((2, 3)),
    "hash_unknown_size_as_tuple": lambda tf, S, x: hash(S([None, 2])) == hash((None, 2)),
    "hash_unknown_rank": lambda tf, S, x: isinstance(hash(S(None)), int),
    "dict_lookup_by_tuple": lambda tf, S, x: {(2, 3): 1}.get(x["m"]),
    "set_of_shape_and_tuple": lambda tf, S, x: len({x["m"], S([2, 3]), (2, 3)}),
    "less_than": lambda tf, S, x: x["m"] < (3, 3),
    # sequence
    "iter": lambda tf, S, x: list(iter(x["m"])),
    "len": lambda tf, S, x: len(x["m"]),
    "index": lambda tf, S, x: x["m"][0],
    "index_negative": lambda tf, S, x: x["m"][-1],
    "index_numpy_int": lambda tf, S, x: x["m"][np.int64(1)],
    "index_out_of_range": lambda tf, S, x: x["m"][5],
    "index_list": lambda tf, S, x: x["m"][[0]],
    "slice": lambda tf, S, x: x["m"][1:],
    "slice_empty": lambda tf, S, x: x["m"][:0],
    "unpack": lambda tf, S, x: (lambda a, b: (a, b))(*x["m"]),
    "contains": lambda tf, S, x: 3 in x["m"],
    "reversed": lambda tf, S, x: list(reversed(x["m"])),
    "sum": lambda tf, S, x: sum(x["m"]),
    "sorted": lambda tf, S, x: sorted(x["m"]),
    "zip": lambda tf, S, x: list(zip(x["m"], (1, 2))),
    "tuple": lambda tf, S, x: tuple(x["m"]),
    "list": lambda tf, S, x: list(x["m"]),
    "is_tuple": lambda tf, S, x: isinstance(x["m"], tuple),
    "times_int": lambda tf, S, x: x["m"] * 2,
    "tuple_index_method": lambda tf, S, x: x["m"].index(3),
    "tuple_count_method": lambda tf, S, x: x["m"].count(3),
    "bool": lambda tf, S, x: bool(x["m"]),
    "bool_scalar": lambda tf, S, x: bool(x["s"]),
    "bool_unknown_rank": lambda tf, S, x: bool(S(None)),
    "len_unknown_rank": lambda tf, S, x: len(S(None)),
    "iter_unknown_rank": lambda tf, S, x: list(S(None)),
    "index_unknown_rank": lambda tf, S, x: S(None)[0],
    "slice_unknown_rank": lambda tf, S, x: S(None)[1:],
    "slice_unknown_rank_bounded": lambda tf, S, x: S(None)[1:3],
    # concatenation
    "add_tuple": lambda tf, S, x: x["m"] + (1,),
    "tuple_add": lambda tf, S, x: (1,) + x["m"],
    "add_list": lambda tf, S, x: x["m"] + [1],
    "list_add": lambda tf, S, x: [1] + x["m"],
    "add_shape": lambda tf, S, x: x["m"] + S([4]),
    "concatenate": lambda tf, S, x: x["m"].concatenate([4]),
    "concatenate_unknown_rank": lambda tf, S, x: S(None).concatenate([1]),
    # TF's API
    "as_list": lambda tf, S, x: x["m"].as_list(),
    "as_list_unknown_rank": lambda tf, S, x: S(None).as_list(),
    "rank": lambda tf, S, x: x["m"].rank,
    "rank_scalar": lambda tf, S, x: x["s"].rank,
    "rank_unknown": lambda tf, S, x: S(None).rank,
    "ndims": lambda tf, S, x: x["m"].ndims,
    "dims_unknown_rank": lambda tf, S, x: S(None).dims,
    "dims_compare": lambda tf, S, x: x["m"].dims == [2, 3],
    "num_elements": lambda tf, S, x: x["m"].num_elements(),
    "num_elements_unknown": lambda tf, S, x: S([None, 2]).num_elements(),
    "num_elements_unknown_rank": lambda tf, S, x: S(None).num_elements(),
    "is_fully_defined": lambda tf, S, x: x["m"].is_fully_defined(),
    "is_fully_defined_unknown": lambda tf, S, x: S([None, 2]).is_fully_defined(),
    "assert_is_fully_defined": lambda tf, S, x: S([None]).assert_is_fully_defined(),
    "merge_with": lambda tf, S, x: S([None, 3]).merge_with([2, None]),
    "merge_with_conflict": lambda tf, S, x: S([1, 3]).merge_with([2, 3]),
    "merge_with_unknown_rank": lambda tf, S, x: S(None).merge_with([2, 3]),
    "is_compatible_with": lambda tf, S, x: S([None, 3]).is_compatible_with([2, 3]),
    "is_compatible_with_rank": lambda tf, S, x: S([2, 3]).is_compatible_with([2]),
    "assert_is_compatible_with": lambda tf, S, x: x["m"].assert_is_compatible_with([3, 3]),
    "with_rank": lambda tf, S, x: x["m"].with_rank(2),
    "with_rank_wrong": lambda tf, S, x: x["m"].with_rank(3),
    "with_rank_unknown": lambda tf, S, x: S(None).with_rank(2),
    "with_rank_at_least": lambda tf, S, x: x["m"].with_rank_at_least(1),
    "with_rank_at_least_wrong": lambda tf, S, x: x["m"].with_rank_at_least(3),
    "with_rank_at_most": lambda tf, S, x: x["m"].with_rank_at_most(1),
    "assert_has_rank": lambda tf, S, x: x["m"].assert_has_rank(3),
    "assert_same_rank": lambda tf, S, x: x["m"].assert_same_rank(S([1])),
    "most_specific_compatible_shape": lambda tf, S, x: S([1, 2]).most_specific_compatible_shape(S([1, 3])),
    "is_subtype_of": lambda tf, S, x: x["m"].is_subtype_of(S([None, 3])),
    "is_subtype_of_not": lambda tf, S, x: S([None, 3]).is_subtype_of(x["m"]),
    "most_specific_common_supertype": lambda tf, S, x: x["m"].most_specific_common_supertype([S([2, 4])]),
    # construction
    "from_int": lambda tf, S, x: S(3),
    "from_str": lambda tf, S, x: type(S("ab")).__name__,
    "from_array": lambda tf, S, x: S(np.array([2, 3])),
    "from_tensor": lambda tf, S, x: S(tf.constant([2, 3])),
    "from_generator": lambda tf, S, x: S(n for n in [1, 2]),
    "from_shape": lambda tf, S, x: S(x["m"]),
    "from_float": lambda tf, S, x: type(S([1.5])).__name__,
    "from_negative": lambda tf, S, x: S([-1]),
    "from_numpy_int_gives_int": lambda tf, S, x: type(S([np.int64(2)])[0]).__name__,
    "empty": lambda tf, S, x: str(S([])),
    # NumPy, pickling, JSON
    "np_zeros": lambda tf, S, x: np.zeros(x["m"]).shape,
    "np_ones_rank_1": lambda tf, S, x: np.ones(x["v"]).shape,
    "np_zeros_scalar": lambda tf, S, x: np.zeros(x["s"]).shape,
    "np_reshape": lambda tf, S, x: np.reshape(np.arange(6), x["m"]).shape,
    "ndarray_reshape": lambda tf, S, x: np.arange(6).reshape(x["m"]).shape,
    "np_broadcast_to": lambda tf, S, x: np.broadcast_to(1.0, x["m"]).shape,
    "np_array": lambda tf, S, x: np.array(x["m"]).tolist(),
    "np_prod": lambda tf, S, x: int(np.prod(x["m"])),
    "np_zeros_unknown_size": lambda tf, S, x: np.zeros(S([None, 2])),
    "pickle": lambda tf, S, x: pickle.loads(pickle.dumps(x["m"])),
    "pickle_unknown_rank": lambda tf, S, x: pickle.loads(pickle.dumps(S(None))),
    "deepcopy": lambda tf, S, x: copy.deepcopy(x["m"]),
    "json": lambda tf, S, x: json.dumps(x["m"]),
    "json_as_list": lambda tf, S, x: json.dumps(x["m"].as_list()),
    # shapes given to ops
    "reshape_to_shape": lambda tf, S, x: tf.reshape(tf.zeros([6]), x["m"]).shape,
    "zeros_of_shape": lambda tf, S, x: tf.zeros(x["m"]).shape,
    "fill_shape_plus_tuple": lambda tf, S, x: tf.ones(x["m"] + (1,)).shape,
}  # fmt: skip


def outcome(fn, *args):
    try:
        value = fn(*args)
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome
        return ["raises", type(exc).__name__, str(exc)]
    return [type(value).__name__, repr(value)]


def run_all(tf):
    shapes = _shapes(tf)
    return {name: outcome(case, tf, tf.TensorShape, shapes) for name, case in CASES.items()}
