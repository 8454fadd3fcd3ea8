"""``tf.saved_model.SaveOptions`` and ``LoadOptions``."""


class SaveOptions:
    """``tf.saved_model.SaveOptions``: accepted, as TF code passes them. Only
    ``experimental_custom_gradients`` changes anything: ``True`` (TF's default) stores each custom
    gradient with the traces; ``False`` stores the function alone, so a loaded function raises TF's
    ``LookupError: No gradient defined for operation ...`` when a tape differentiates it.

    Args:
        namespace_whitelist: accepted (there are no custom ops).
        save_debug_info: accepted.
        function_aliases: accepted.
        experimental_io_device: accepted.
        experimental_variable_policy: accepted.
        experimental_custom_gradients: kept: whether traced functions keep their custom gradients.
        **future_options: accepted.
    """

    def __init__(
        self,
        namespace_whitelist=None,
        save_debug_info=False,
        function_aliases=None,
        experimental_io_device=None,
        experimental_variable_policy=None,
        experimental_custom_gradients=True,
        **future_options,
    ):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.future_options = future_options


class LoadOptions:
    """``tf.saved_model.LoadOptions``: accepted and ignored (there is no graph to place on a device).

    Args:
        allow_partial_checkpoint: accepted.
        experimental_io_device: accepted.
        experimental_skip_checkpoint: accepted.
        **future_options: accepted.
    """

    def __init__(
        self,
        allow_partial_checkpoint=False,
        experimental_io_device=None,
        experimental_skip_checkpoint=False,
        **future_options,
    ):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.future_options = future_options
