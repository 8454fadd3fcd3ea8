"""``keras.utils``: to_categorical, set_random_seed, array_to_img, pad_sequences, plot_model...

One module per job, as Keras 3's ``keras/src/utils``.
"""

from tapeviz.keras.trainers.data_adapters.py_dataset_adapter import PyDataset
from tapeviz.keras.utils.file_utils import get_file
from tapeviz.keras.utils.image_utils import array_to_img, img_to_array
from tapeviz.keras.utils.model_visualization import model_to_dot, plot_model
from tapeviz.keras.utils.numerical_utils import normalize, to_categorical
from tapeviz.keras.utils.rng_utils import set_random_seed
from tapeviz.keras.utils.sequence_utils import pad_sequences

__all__ = [
    "to_categorical",
    "get_file",
    "normalize",
    "set_random_seed",
    "array_to_img",
    "img_to_array",
    "pad_sequences",
    "PyDataset",
    "Sequence",
    "plot_model",
    "model_to_dot",
]


Sequence = PyDataset  # Keras 3 keeps the old name as an alias
