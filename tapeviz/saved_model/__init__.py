"""``tf.saved_model.save`` / ``load``: a Module (or a Keras model) in a directory, in tapeviz's format.

As TF's SavedModel, it stores the object's traced ``tf.function``s, so a
loaded object can be called, and differentiated, without its Python class.
The directory holds:

- ``tapeviz_saved_model.json``: the format marker, the object's class name
  (as data: shown, never imported), the arguments it was constructed with,
  the path of every variable (``'layers/0/w'``), the traces of every
  ``tf.function`` of the object and of the modules it holds
  (``saved_functions``: ``ConcreteFunction.to_dict()`` data, custom gradients
  included, captured variables named by path; a function a file cannot hold,
  such as an optimizer step, is left out with a note), the ``signatures``,
  and the name of the data file beside it;
- ``variables-<token>.npz``: the variables' values, in ``module.variables``
  order, then the state of each ``tf.random.Generator`` the object holds
  (path ``<attribute>/_state_var``, as TF saves it: a loaded function's
  draws read and move the restored state) (``model-<token>.keras`` for a
  Keras model).

A file is data. ``load`` returns, as TF does, a restored object holding the
variables at their attribute paths (``restored.layers[0].w``) and one
callable per saved ``tf.function`` (``restored.inner.scaled(x)``,
``restored(x)`` for ``__call__``), which runs the first stored trace that
accepts its arguments. Ops are found only in tapeviz's primitive registry,
host calls only in its closed table; a graph is checked (arities, value ids,
variable indices, shapes) before it is accepted. ``load`` rebuilds a real
instance only of a class the user hands it:
``load(path, custom_objects={"Scaled": Scaled})``, or a class registered
with ``tf.keras.saving.register_keras_serializable()``. That class is called
with the saved constructor arguments (values, and only objects the Keras
loader may make), lazily created variables are made by calling each
``tf.function`` with an ``input_signature`` on zeros, and every variable
takes its saved value. No module or attribute named in the file is ever
looked up.

Writing is all or nothing: the data file gets a fresh name, the manifest
naming it replaces the old one in one ``os.replace``, and only then is the
old data file removed, so the folder always holds a readable, matching pair.
Functions are traced and encoded before anything is written.

The package: ``save.py`` and ``load.py``, ``manifest.py`` (the folder's names and its
manifest read as data), ``functions.py`` (the traced functions a manifest holds),
``held.py`` (which variables are saved, in what order, at what paths), ``options.py``. The variables' ``.npz`` is read by ``tapeviz.core.files.NpzArrays``, the
reader checkpoints use.
"""

from tapeviz.saved_model.load import load
from tapeviz.saved_model.options import LoadOptions, SaveOptions
from tapeviz.saved_model.save import save

__all__ = ["save", "load", "SaveOptions", "LoadOptions"]
