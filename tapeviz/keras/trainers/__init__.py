"""Training: ``Trainer`` (compile / fit / evaluate / predict), compiled losses and metrics, data adapters.

As Keras 3's ``keras/src/trainers``: ``trainer.py`` runs the loops,
``compile_utils.py`` turns ``compile``'s losses and metrics into objects,
``data_adapters/`` reads what ``fit`` is given.
"""
