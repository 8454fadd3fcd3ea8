"""``keras.callbacks``: hooks into ``fit``, ``evaluate`` and ``predict``, called as Keras 3 calls them.

``fit`` wraps the user's callbacks in a ``CallbackList`` (with a ``History``
added), calls ``on_train_begin()``, then per epoch ``on_epoch_begin(epoch)``,
``on_train_batch_begin(step)`` / ``on_train_batch_end(step, logs)``, the
validation pass through the same list (``on_test_*``), ``on_epoch_end(epoch,
logs)`` with the ``val_*`` entries, and ``on_train_end(logs)`` with the last
epoch's logs. Logs are plain Python floats. Files are written atomically
(a temporary file beside the target, then ``os.replace``).

One module per callback or family, as Keras 3's ``keras/src/callbacks``.
"""

from tapeviz.keras.callbacks.backup_and_restore import BackupAndRestore
from tapeviz.keras.callbacks.callback import Callback
from tapeviz.keras.callbacks.callback_list import CallbackList
from tapeviz.keras.callbacks.csv_logger import CSVLogger
from tapeviz.keras.callbacks.early_stopping import EarlyStopping
from tapeviz.keras.callbacks.history import History
from tapeviz.keras.callbacks.lambda_callback import LambdaCallback
from tapeviz.keras.callbacks.learning_rate_scheduler import LearningRateScheduler
from tapeviz.keras.callbacks.model_checkpoint import ModelCheckpoint
from tapeviz.keras.callbacks.reduce_lr_on_plateau import ReduceLROnPlateau
from tapeviz.keras.callbacks.tensorboard import TensorBoard
from tapeviz.keras.callbacks.terminate_on_nan import TerminateOnNaN

__all__ = [
    "Callback",
    "CallbackList",
    "History",
    "LambdaCallback",
    "EarlyStopping",
    "ModelCheckpoint",
    "ReduceLROnPlateau",
    "LearningRateScheduler",
    "CSVLogger",
    "TerminateOnNaN",
    "BackupAndRestore",
    "TensorBoard",
]
