"""``keras.config``: the settings Keras 3 keeps for the whole process.

The default float type of new layers (``floatx``), the fuzz factor of the
losses (``epsilon``), the layout convolutions assume (``image_data_format``),
whether a saved lambda may run (``enable_unsafe_deserialization``), caps on
``fit`` (``set_max_epochs``, ``set_max_steps_per_epoch``), and switches that
only say what they are set to here (traceback filtering, flash attention:
NumPy has neither). tapeviz plays the part of Keras's TensorFlow backend, so
``backend()`` is ``"tensorflow"`` and cannot be switched.
"""

from tapeviz.keras.saving import config as saving_config

_FLOATX = ("float16", "bfloat16", "float32", "float64")
_FORMATS = ("channels_first", "channels_last")


class _Settings:
    floatx = "float32"
    epsilon = 1e-7
    image_data_format = "channels_last"
    interactive_logging = True
    traceback_filtering = True
    flash_attention = None  # Keras's "not decided": each layer picks
    max_epochs = None
    max_steps_per_epoch = None
    dtype_policy = None  # None: a policy named after floatx()


_settings = _Settings()


def floatx():
    """The default float type of new layers' weights and computations, as a string (``"float32"``).

    Returns:
        A dtype name.
    """
    return _settings.floatx


def set_floatx(value):
    """Set the default float type: one of ``float16``, ``bfloat16``, ``float32``, ``float64``.

    Raises:
        ValueError: any other value (Keras's message).

    Args:
        value: a float dtype name.
    """
    value = str(getattr(value, "name", value))
    if value not in _FLOATX:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {set(_FLOATX)}")
    _settings.floatx = value


def epsilon():
    """The fuzz factor the losses clip probabilities with (``1e-07``).

    Returns:
        A float.
    """
    return _settings.epsilon


def set_epsilon(value):
    """Set the fuzz factor (``keras.losses`` clip probabilities to ``[epsilon, 1 - epsilon]``).

    Args:
        value: a small float.
    """
    _settings.epsilon = float(value)


def image_data_format():
    """``"channels_last"`` (NHWC, the default) or ``"channels_first"``: what convolutions assume.

    Returns:
        A string.
    """
    return _settings.image_data_format


def set_image_data_format(data_format):
    """Set the layout new convolution and pooling layers assume when given no ``data_format``.

    Raises:
        ValueError: a value other than ``channels_first`` / ``channels_last`` (Keras's message).

    Args:
        data_format: ``"channels_last"`` or ``"channels_first"``.
    """
    value = str(data_format).lower()
    if value not in _FORMATS:
        raise ValueError(
            f"The `data_format` argument must be one of {set(_FORMATS)}. Received: data_format={data_format}"
        )
    _settings.image_data_format = value


def backend():
    """``"tensorflow"``: tapeviz answers to code written for Keras on TensorFlow.

    Returns:
        The string ``"tensorflow"``.
    """
    return "tensorflow"


def set_backend(backend):
    """Keras 3 switches between JAX, PyTorch and TensorFlow; tapeviz is the TensorFlow one only.

    Raises:
        ValueError: any backend but ``"tensorflow"``.

    Args:
        backend: ``"tensorflow"`` (the only one).
    """
    if backend != "tensorflow":
        raise ValueError(
            f"tapeviz runs Keras code as the TensorFlow backend does and cannot switch to {backend!r}. "
            "Run that program with real Keras (pip install keras) to use another backend."
        )


def enable_unsafe_deserialization():
    """Let ``load_model`` rebuild saved lambdas (Python code in the file) without ``safe_mode=False``."""
    saving_config.allow_unsafe_deserialization()


def enable_interactive_logging():
    """Progress bars and lines of ``fit`` / ``evaluate`` / ``predict`` go to the terminal (the default)."""
    _settings.interactive_logging = True


def disable_interactive_logging():
    """Send ``fit``'s progress lines to Python's ``logging`` (logger ``keras``, level INFO) instead."""
    _settings.interactive_logging = False


def is_interactive_logging_enabled():
    """Whether ``fit`` prints to the terminal (True, the default) or logs (after ``disable_interactive_logging``).

    Returns:
        A bool.
    """
    return _settings.interactive_logging


def enable_traceback_filtering():
    """Kept for Keras code; tapeviz's tracebacks are never filtered (every frame is Python you can read)."""
    _settings.traceback_filtering = True


def disable_traceback_filtering():
    """Kept for Keras code: tapeviz never filters tracebacks; this only changes what the query answers."""
    _settings.traceback_filtering = False


def is_traceback_filtering_enabled():
    """What ``enable_`` / ``disable_traceback_filtering`` last set (True at start, as Keras).

    Returns:
        A bool.
    """
    return _settings.traceback_filtering


def enable_flash_attention():
    """Kept for Keras code: attention on NumPy has no flash kernel, so this changes no number."""
    _settings.flash_attention = True


def disable_flash_attention():
    """Kept for Keras code (no flash kernel on NumPy); ``is_flash_attention_enabled()`` then answers False."""
    _settings.flash_attention = False


def is_flash_attention_enabled():
    """True or False once set; None (as Keras) while each layer decides.

    Returns:
        True, False, or None.
    """
    return _settings.flash_attention


def is_nnx_enabled():
    """False: Flax NNX belongs to Keras's JAX backend.

    Returns:
        False.
    """
    return False


def set_max_epochs(max_epochs):
    """Cap the epochs of every ``fit`` (None: no cap); ``fit`` warns when it cuts, as Keras.

    Args:
        max_epochs: an int, or None.
    """
    _settings.max_epochs = None if max_epochs is None else int(max_epochs)


def max_epochs():
    """The cap ``set_max_epochs`` put on ``fit``'s epochs, or None.

    Returns:
        An int, or None.
    """
    return _settings.max_epochs


def set_max_steps_per_epoch(max_steps_per_epoch):
    """Cap the batches of each epoch of ``fit`` (None: no cap).

    Args:
        max_steps_per_epoch: an int, or None.
    """
    _settings.max_steps_per_epoch = None if max_steps_per_epoch is None else int(max_steps_per_epoch)


def max_steps_per_epoch():
    """The cap ``set_max_steps_per_epoch`` put on each epoch's batches, or None.

    Returns:
        An int, or None.
    """
    return _settings.max_steps_per_epoch


# A mixed policy computes in its half type and keeps its weights in float32.
_MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}


class DTypePolicy:
    """A dtype policy: ``name``, the ``variable_dtype`` weights are kept in and the ``compute_dtype``.

    ``"float32"`` (or any float name) computes and keeps weights in that type;
    ``"mixed_float16"`` computes in float16 and keeps weights in float32, as
    Keras 3's ``keras.mixed_precision.Policy``.

    Args:
        name: a float dtype name (``"float32"``), ``"mixed_float16"``, or None (floatx).

    Raises:
        ValueError: a name that is no float dtype or mixed policy (``mixed_bfloat16`` included: NumPy has no bfloat16).

    Raises:
        ValueError: a name that is no float dtype or mixed policy (``mixed_bfloat16`` included: NumPy has no bfloat16).
    """

    def __init__(self, name=None):
        if isinstance(name, dict):  # a layer config's {"class_name": "DTypePolicy", "config": {"name": ...}}
            name = name.get("config", {}).get("name")
        name = floatx() if name is None else str(getattr(name, "name", name))
        if name == "mixed_bfloat16":
            raise ValueError(
                "tapeviz computes with NumPy, which has no bfloat16: the 'mixed_bfloat16' policy is not "
                "available. Use 'mixed_float16' (float16 computations, float32 weights) instead."
            )
        if name not in _FLOATX and name not in _MIXED:
            raise ValueError(
                f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid policies include "
                "'mixed_float16', 'mixed_bfloat16', and the name of any float dtype such as 'float32'."
            )
        self.name = name
        self.compute_dtype = _MIXED.get(name, name)
        self.variable_dtype = "float32" if name in _MIXED else name

    def __repr__(self):
        return f'<DTypePolicy "{self.name}">'

    def __eq__(self, other):
        return isinstance(other, DTypePolicy) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def get_config(self):
        """``{"name": ...}``, as Keras 3.

        Returns:
            A dict, ``{"name": ...}``.
        """
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        """The policy a ``get_config()`` dict describes.

        Args:
            config: the dict from ``get_config``.

        Returns:
            A DTypePolicy.
        """
        return cls(**config)

    @property
    def is_mixed(self):
        """Whether computations and weights use different dtypes (``mixed_float16``)."""
        return self.compute_dtype != self.variable_dtype


def dtype_policy():
    """The global dtype policy: the one set with ``set_dtype_policy``, else one named after ``floatx()``.

    Returns:
        A ``DTypePolicy``.
    """
    return _settings.dtype_policy or DTypePolicy(floatx())


def set_dtype_policy(policy):
    """Set the global dtype policy (``"mixed_float16"``, ``"float64"`` or a ``DTypePolicy``); new layers use it.

    ``None`` (tapeviz's addition) goes back to the start: a policy named after ``floatx()``.

    Args:
        policy: a policy name, a ``DTypePolicy``, or None.
    """
    if policy is None:
        _settings.dtype_policy = None
        return
    _settings.dtype_policy = policy if isinstance(policy, DTypePolicy) else DTypePolicy(policy)


def policy_of(dtype):
    """The policy of a layer given ``dtype=``: None (the global one), a policy, its name, a config dict,
    or any dtype name (``"int32"`` for an integer layer: that type for both)."""
    if dtype is None:
        return dtype_policy()
    if isinstance(dtype, DTypePolicy):
        return dtype
    name = dtype.get("config", {}).get("name") if isinstance(dtype, dict) else str(getattr(dtype, "name", dtype))
    if name in _FLOATX or name in _MIXED:
        return DTypePolicy(name)
    plain = DTypePolicy.__new__(DTypePolicy)
    plain.name = plain.compute_dtype = plain.variable_dtype = name
    return plain


def default_dtype():
    """The dtype a new layer keeps its weights in when given none: the global policy's variable dtype."""
    return dtype_policy().variable_dtype


__all__ = [
    "backend",
    "set_backend",
    "floatx",
    "set_floatx",
    "epsilon",
    "set_epsilon",
    "image_data_format",
    "set_image_data_format",
    "enable_unsafe_deserialization",
    "enable_interactive_logging",
    "disable_interactive_logging",
    "is_interactive_logging_enabled",
    "enable_traceback_filtering",
    "disable_traceback_filtering",
    "is_traceback_filtering_enabled",
    "enable_flash_attention",
    "disable_flash_attention",
    "is_flash_attention_enabled",
    "is_nnx_enabled",
    "set_max_epochs",
    "max_epochs",
    "set_max_steps_per_epoch",
    "max_steps_per_epoch",
    "dtype_policy",
    "set_dtype_policy",
]
