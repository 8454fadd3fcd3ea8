"""String tensors and ``tf.strings`` cases compared with TF 2.21: shared by strings_reference.py and
tests/core/test_strings.py.

Each case is ``name -> code``: Python run with ``tf`` bound to TensorFlow or tapeviz and ``np`` to
NumPy; its last line's value is the result. ``run`` returns ``["ok", description]`` (see
``describe``) or ``["error", exception type name]``.
"""

import numpy as np

CASES = {
    # making and printing
    "constant:scalar": "tf.constant('Gray wolf')",
    "constant:list": "tf.constant(['Gray wolf', 'Quick brown fox', 'Lazy dog'])",
    "constant:unicode": "tf.constant('🥳👍')",
    "constant:bytes": "tf.constant([b'a\\xff', b''])",
    "constant:matrix": "tf.constant([['a', 'b'], ['c', 'd']])",
    "constant:dtype": "tf.constant('x', dtype=tf.string)",
    "constant:numpy_unicode": "tf.constant(np.array(['ab', 'c']))",
    "constant:numpy_object": "tf.constant(np.array([b'ab', b'c'], dtype=object))",
    "constant:shape_fill": "tf.constant('z', shape=[2, 2])",
    "constant:number_as_string": "tf.constant(1, dtype=tf.string)",
    "constant:string_as_number": "tf.constant('1', dtype=tf.float32)",
    "constant:mixed": "tf.constant(['a', 1])",
    "str:scalar": "str(tf.constant('Gray wolf'))",
    "str:list": "str(tf.constant(['Gray wolf', 'Quick brown fox', 'Lazy dog']))",
    "str:matrix": "str(tf.constant([['a', 'b'], ['c', 'd']]))",
    "repr:scalar": "repr(tf.constant('🥳👍'))",
    "repr:list": "repr(tf.constant(['a', 'bc']))",
    "numpy:scalar": "tf.constant('abc').numpy()",
    "numpy:list": "tf.constant(['abc', 'd']).numpy()",
    "dtype": "(tf.string.name, str(tf.string), repr(tf.string), tf.as_dtype('string') == tf.string)",
    "dtype:of_tensor": "tf.constant('a').dtype == tf.string",
    "convert_to_tensor": "tf.convert_to_tensor(['p', 'q'])",
    "convert_to_tensor:nested_tensors": "tf.convert_to_tensor([[tf.constant(b'Open')], [tf.constant('Read')]])",
    "convert_to_tensor:nested_vectors": "tf.convert_to_tensor([tf.constant(['a', 'b']), tf.constant(['c', 'd'])])",
    "convert_to_tensor:nested_dtype": "tf.convert_to_tensor([[tf.constant('a')], ['x']], dtype=tf.string)",
    "convert_to_tensor:nested_mixed": "tf.convert_to_tensor([tf.constant('a'), 1])",
    "convert_to_tensor:nested_number_tensor": "tf.convert_to_tensor([tf.constant('a'), tf.constant(1)])",
    "convert_to_tensor:number_then_string": "tf.convert_to_tensor([1, tf.constant('a')])",
    "concat:nested_tensor": "tf.concat((tf.constant([['a']]), [[tf.constant('b')]]), axis=0)",
    "concat:mixed": "tf.concat((tf.constant([['a']]), [[1]]), axis=0)",
    "py_function:strings": "tf.py_function(lambda s, n: (tf.concat((s, [['Map']]), axis=0), n + 1), "
    "inp=(tf.constant([['Open']]), tf.constant(1)), Tout=(tf.string, tf.int32))",
    "py_function:string_list_result": "tf.py_function(lambda s: [[s]], inp=[tf.constant('a')], Tout=tf.string)",
    # shape and structure ops
    "reshape": "tf.reshape(tf.constant(['a', 'b', 'c', 'd']), [2, 2])",
    "stack": "tf.stack([tf.constant('a'), tf.constant('b')])",
    "concat": "tf.concat([tf.constant(['a']), tf.constant(['b', 'c'])], axis=0)",
    "gather": "tf.gather(tf.constant(list('abcdefghijklmnopqrstuvwxyz')), indices=[2, 0, 19, 18])",
    "slice:int": "tf.constant(['a', 'b', 'c'])[1]",
    "slice:range": "tf.constant(['a', 'b', 'c'])[1:]",
    "slice:matrix": "tf.constant([['a', 'b'], ['c', 'd']])[:, 0]",
    "tile": "tf.tile(tf.constant(['a', 'b']), [2])",
    "expand_dims": "tf.expand_dims(tf.constant(['a', 'b']), 0)",
    "transpose": "tf.transpose(tf.constant([['a', 'b'], ['c', 'd']]))",
    "identity": "tf.identity(tf.constant('a'))",
    "size": "tf.size(tf.constant([['a', 'b'], ['c', 'd']]))",
    "shape": "tf.shape(tf.constant(['a', 'b', 'c']))",
    "shape_attr": "tf.constant([['a'], ['b']]).shape.as_list()",
    "equal": "tf.equal(tf.constant(['a', 'b']), tf.constant(['a', 'c']))",
    "equal:scalar": "tf.equal(tf.constant('a'), 'a')",
    "not_equal": "tf.not_equal(tf.constant(['a', 'b']), 'a')",
    "operator_eq": "tf.constant(['a', 'b']) == 'b'",
    "where": "tf.where(tf.constant([True, False]), tf.constant(['a', 'b']), tf.constant(['x', 'y']))",
    "boolean_mask": "tf.boolean_mask(tf.constant(['a', 'b', 'c']), [True, False, True])",
    "unstack": "tf.unstack(tf.constant(['a', 'b']))",
    "iterate": "[t for t in tf.constant(['a', 'b'])]",
    "zeros_like": "tf.zeros_like(tf.constant(['a', 'b']))",
    "fill": "tf.fill([2], 'x')",
    "add": "tf.constant('a') + tf.constant('b')",
    "add:python": "tf.constant(['a', 'b']) + 'c'",
    "add:radd": "'c' + tf.constant(['a', 'b'])",
    "add:broadcast": "tf.add(tf.constant(['a', 'b']), tf.constant('!'))",
    "add:number": "tf.constant('a') + 1",
    "add:number_tensor": "tf.constant('a') + tf.constant(1)",
    "subtract": "tf.constant('a') - tf.constant('b')",
    "multiply": "tf.constant('a') * 2",
    "reduce_sum": "tf.reduce_sum(tf.constant(['a', 'b']))",
    "cast:to_float": "tf.cast(tf.constant('1'), tf.float32)",
    "cast:from_int": "tf.cast(tf.constant(1), tf.string)",
    "bool": "bool(tf.constant('a'))",
    # tf.strings
    "length": "tf.strings.length(tf.constant(['Gray wolf', '🥳', '']))",
    "length:utf8": "tf.strings.length(tf.constant(['Gray wolf', '🥳👍', 'é']), unit='UTF8_CHAR')",
    "length:scalar": "tf.strings.length('abc')",
    "lower": "tf.strings.lower(tf.constant(['ABC dEf', 'ÀB']))",
    "upper": "tf.strings.upper(tf.constant(['abc dEf', 'àb']))",
    "lower:utf8": "tf.strings.lower(tf.constant(['ÀB']), encoding='utf-8')",
    "upper:utf8": "tf.strings.upper(tf.constant(['àb']), encoding='utf-8')",
    "strip": "tf.strings.strip(tf.constant(['  a b \\n', '\\tc']))",
    "split:scalar": "tf.strings.split(tf.constant('Gray wolf'), sep=' ')",
    "split:vector": "tf.strings.split(tf.constant(['Gray wolf', 'Quick brown fox', 'Lazy dog']))",
    "split:whitespace_runs": "tf.strings.split(tf.constant('  a   b  '))",
    "split:sep_empty_parts": "tf.strings.split(tf.constant('a,,b,'), sep=',')",
    "split:maxsplit": "tf.strings.split(tf.constant(['a b c d', 'e']), maxsplit=1)",
    "split:maxsplit_whitespace": "tf.strings.split(tf.constant(['e f', 'a b c', ' e ', '']), maxsplit=2)",
    "split:sep_multichar": "tf.strings.split(tf.constant('a<>b<>c'), sep='<>')",
    "split:empty_string": "tf.strings.split(tf.constant(['', 'a']))",
    "split:matrix": "tf.strings.split(tf.constant([['a b', 'c'], ['d', 'e f g']]))",
    "join": "tf.strings.join([tf.constant(['a', 'b']), tf.constant(['c', 'd'])], separator='-')",
    "join:broadcast": "tf.strings.join([tf.constant(['a', 'b']), 'x'])",
    "reduce_join": "tf.strings.reduce_join(tf.constant(['a', 'b', 'c']))",
    "reduce_join:axis": "tf.strings.reduce_join(tf.constant([['a', 'b'], ['c', 'd']]), axis=1, separator=' ')",
    "reduce_join:axis0_keepdims": (
        "tf.strings.reduce_join(tf.constant([['a', 'b'], ['c', 'd']]), axis=0, keepdims=True)"
    ),
    "substr": "tf.strings.substr(tf.constant(['Hello', 'World']), 1, 3)",
    "substr:vector_pos": "tf.strings.substr(tf.constant(['Hello', 'World']), [0, 2], [2, 10])",
    "substr:negative_pos": "tf.strings.substr(tf.constant('Hello'), -3, 2)",
    "substr:utf8": "tf.strings.substr(tf.constant('àbçd'), 1, 2, unit='UTF8_CHAR')",
    "substr:out_of_range": "tf.strings.substr(tf.constant('abc'), 5, 1)",
    "regex_full_match": "tf.strings.regex_full_match(tf.constant(['abc', 'abd', 'xabc']), 'ab.')",
    "regex_replace": "tf.strings.regex_replace(tf.constant(['a1b22', 'none']), '[0-9]+', '#')",
    "regex_replace:first": "tf.strings.regex_replace(tf.constant('a1b22'), '[0-9]', '#', replace_global=False)",
    "regex_replace:group": r"tf.strings.regex_replace(tf.constant('john smith'), r'(\w+) (\w+)', r'\2 \1')",
    "to_number": "tf.strings.to_number(tf.constant(['1', '10', '100']))",
    "to_number:split": "tf.strings.to_number(tf.strings.split(tf.constant('1 10 100'), ' '))",
    "to_number:int": "tf.strings.to_number(tf.constant(['7', '-3']), out_type=tf.int32)",
    "to_number:float64": "tf.strings.to_number(tf.constant(['0.1', '1e3', ' 2 ']), out_type=tf.float64)",
    "to_number:bad": "tf.strings.to_number(tf.constant(['x']))",
    "to_number:int_from_float": "tf.strings.to_number(tf.constant(['1.5']), out_type=tf.int32)",
    "to_hash_bucket_fast": "tf.strings.to_hash_bucket_fast(['Hello', 'TensorFlow', '2.x', ''], 3)",
    "to_hash_bucket_fast:lengths": (
        "tf.strings.to_hash_bucket_fast(tf.constant([('ab' * n)[:n] for n in (1, 5, 9, 17, 33, 65, 200)]), 2**40)"
    ),
    "to_hash_bucket_fast:zero_buckets": "tf.strings.to_hash_bucket_fast(['a'], 0)",
    "as_string:int": "tf.strings.as_string(tf.constant([1, -20]))",
    "as_string:float": "tf.strings.as_string(tf.constant([1.5, 0.1, 3.0]))",
    "as_string:precision": "tf.strings.as_string(tf.constant([1.23456, 2.0]), precision=2)",
    "as_string:bool": "tf.strings.as_string(tf.constant([True, False]))",
    "as_string:width": "tf.strings.as_string(tf.constant([7, 42]), width=4, fill='0')",
    "as_string:scientific": "tf.strings.as_string(tf.constant([1234.5]), scientific=True)",
    "as_string:shortest": "tf.strings.as_string(tf.constant([0.1, 1e20]), shortest=True)",
    "as_string:float64": "tf.strings.as_string(tf.constant([0.1], tf.float64))",
    "format": "tf.strings.format('x={} y={}', (tf.constant(1), tf.constant([1.5, 2.0])))",
    "format:string": "tf.strings.format('hello {}', tf.constant(['a', 'b']))",
    "format:one": "tf.strings.format('{}!', tf.constant(3))",
    "format:summarize": "tf.strings.format('{}', tf.range(10), summarize=2)",
    "format:matrix": "tf.strings.format('{}', tf.constant([[1, 2], [3, 4]]))",
    "format:bools_floats": "tf.strings.format('{} {} {}', (tf.constant([[True, False]]), 2.5, tf.constant([0.1, 1e-7])))",
    "bytes_split": "tf.strings.bytes_split(tf.constant('Duck'))",
    "bytes_split:vector": "tf.strings.bytes_split(tf.constant(['ab', '', 'c']))",
    "decode_raw": "tf.io.decode_raw(tf.constant('Duck'), tf.uint8)",
    "decode_raw:vector": "tf.io.decode_raw(tf.constant(['ab', 'cd']), tf.uint8)",
    "unicode_split": "tf.strings.unicode_split(tf.constant('アヒル 🦆'), 'UTF-8')",
    "unicode_split:vector": "tf.strings.unicode_split(tf.constant(['aé', 'b']), 'UTF-8')",
    "unicode_decode": "tf.strings.unicode_decode(tf.constant('アヒル 🦆'), 'UTF-8')",
    "unicode_decode:vector": "tf.strings.unicode_decode(tf.constant(['aé', '', '🦆']), 'UTF-8')",
    "unicode_encode": "tf.strings.unicode_encode(tf.constant([65, 233, 129414]), 'UTF-8')",
    "unicode_encode:ragged": (
        "tf.strings.unicode_encode(tf.ragged.constant([[104, 105], [129414]]), output_encoding='UTF-8')"
    ),
    "unicode_transcode": "tf.strings.unicode_transcode(tf.constant(['aé']), 'UTF-8', 'UTF-16-BE')",
    "unicode_decode_with_offsets": ("tf.strings.unicode_decode_with_offsets(tf.constant('aé🦆'), 'UTF-8')"),
    # tf.function and specs
    "spec": "repr(tf.TensorSpec(shape=[], dtype=tf.string))",
    "function:double": (
        "traces = []\n"
        "@tf.function\n"
        "def double(a):\n"
        "    traces.append(a.dtype.name)\n"
        "    return a + a\n"
        "out = [double(tf.constant('a')), double(tf.constant('b')), double(tf.constant(['c', 'd']))]\n"
        "[o.numpy() if o.shape.rank == 0 else o.numpy().tolist() for o in out] + [traces]"
    ),
    "function:signature": (
        "traces = []\n"
        "@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.string)])\n"
        "def up(s):\n"
        "    traces.append(1)\n"
        "    return tf.strings.upper(s)\n"
        "out = [up(['ab']), up(tf.constant(['c', 'de']))]\n"
        "[o.numpy() if o.shape.rank == 0 else o.numpy().tolist() for o in out] + [len(traces)]"
    ),
    "function:concrete_spec": (
        "@tf.function\n"
        "def f(a):\n"
        "    return tf.strings.length(a) + 1\n"
        "c = f.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))\n"
        "c(tf.constant('four')).numpy().tolist()"
    ),
    "function:wrong_dtype": (
        "@tf.function\ndef f(a):\n    return a + a\nc = f.get_concrete_function(tf.constant('a'))\nc(tf.constant(1))"
    ),
    "function:wrong_dtype_float": (
        "@tf.function\ndef f(a):\n    return a + a\nc = f.get_concrete_function(tf.constant(1.0))\nc(tf.constant(1))"
    ),
    "gradient:through_strings": (
        "x = tf.constant([1.5, 2.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = tf.strings.to_number(tf.strings.as_string(x))\n"
        "tape.gradient(y, x)"
    ),
    "gradient:unconnected_mix": (
        "x = tf.constant(2.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = x * x + tf.strings.to_number(tf.strings.as_string(x))\n"
        "tape.gradient(y, x).numpy().tolist()"
    ),
    "dataset": (
        "ds = tf.data.Dataset.from_tensor_slices(tf.constant(['a', 'bb']))\n"
        "[tf.strings.length(t).numpy().tolist() for t in ds] + [t.numpy() for t in ds]"
    ),
    "dataset:map": (
        "ds = tf.data.Dataset.from_tensor_slices(['a b', 'c']).map(tf.strings.upper)\n[t.numpy() for t in ds]"
    ),
}


def describe(result):
    """A JSON-able, implementation-neutral picture of a case's value (bytes shown by repr)."""
    if hasattr(result, "to_list") and hasattr(result, "row_splits"):
        return ["ragged", result.dtype.name, repr(result.to_list()), str(result)]
    if hasattr(result, "numpy") and hasattr(result, "dtype"):
        value = result.numpy()
        listed = value.tolist() if isinstance(value, np.ndarray) else value
        if isinstance(listed, np.generic):
            listed = listed.item()
        return ["tensor", result.dtype.name, list(result.shape), repr(listed), str(result)]
    if isinstance(result, (list, tuple)):
        return [describe(item) for item in result]
    if isinstance(result, np.ndarray):
        return ["ndarray", str(result.dtype), repr(result.tolist())]
    return repr(result)


def run(tf, code):
    """``["ok", describe(result)]`` or ``["error", exception type name]`` for one case's code."""
    lines = code.split("\n")
    scope = {"tf": tf, "np": np}
    try:
        exec("\n".join(lines[:-1]), scope)  # noqa: S102 - the cases above, written here
        result = eval(lines[-1], scope)  # noqa: S307
    except Exception as exc:  # noqa: BLE001 - the reference records whatever TF raises
        return ["error", type(exc).__name__]
    return ["ok", describe(result)]
