"""Keras 3 (on TF 2.21) results of AUC, F1Score/FBetaScore and the IoU metrics on seeded data, two batches each,
with and without sample weights: tests/tf_reference/keras_metric_more_values.json.

    python tests/tf_reference/keras_metric_more_reference.py
"""

import json
import pathlib

import numpy as np

# (name, class, constructor kwargs, data kind); data kinds below
CASES = [
    ("auc_roc", "AUC", {}, "binary"),
    ("auc_roc_few", "AUC", {"num_thresholds": 3}, "binary"),
    ("auc_roc_minoring", "AUC", {"summation_method": "minoring"}, "binary"),
    ("auc_roc_majoring", "AUC", {"summation_method": "majoring"}, "binary"),
    ("auc_pr", "AUC", {"curve": "PR"}, "binary"),
    ("auc_pr_minoring", "AUC", {"curve": "PR", "summation_method": "minoring"}, "binary"),
    ("auc_thresholds", "AUC", {"thresholds": [0.1, 0.4, 0.5, 0.9]}, "binary"),
    ("auc_logits", "AUC", {"from_logits": True}, "logits"),
    ("auc_multi_label", "AUC", {"multi_label": True}, "multilabel"),
    ("auc_multi_label_weights", "AUC", {"multi_label": True, "label_weights": [0.2, 0.3, 0.5]}, "multilabel"),
    ("auc_ties", "AUC", {"num_thresholds": 5}, "ties"),
    ("f1_none", "F1Score", {}, "classes"),
    ("f1_micro", "F1Score", {"average": "micro"}, "classes"),
    ("f1_macro", "F1Score", {"average": "macro"}, "classes"),
    ("f1_weighted", "F1Score", {"average": "weighted"}, "classes"),
    ("f1_threshold", "F1Score", {"threshold": 0.4}, "classes"),
    ("fbeta_2_macro", "FBetaScore", {"beta": 2.0, "average": "macro"}, "classes"),
    ("fbeta_half_threshold", "FBetaScore", {"beta": 0.5, "threshold": 0.3}, "classes"),
    ("iou", "IoU", {"num_classes": 3, "target_class_ids": [0, 2]}, "sparse"),
    ("iou_ignore", "IoU", {"num_classes": 3, "target_class_ids": [0, 1, 2], "ignore_class": 1}, "sparse"),
    ("mean_iou", "MeanIoU", {"num_classes": 4}, "sparse4"),
    ("binary_iou", "BinaryIoU", {}, "binary"),
    ("binary_iou_one", "BinaryIoU", {"target_class_ids": [1], "threshold": 0.3}, "binary"),
    ("one_hot_iou", "OneHotIoU", {"num_classes": 3, "target_class_ids": [1, 2]}, "classes"),
    ("one_hot_mean_iou", "OneHotMeanIoU", {"num_classes": 3}, "classes"),
]


def data(kind, seed):
    """Two batches of (y_true, y_pred, sample_weight) as lists, from a seeded NumPy generator."""
    rng = np.random.default_rng(seed)
    batches = []
    for _ in range(2):
        if kind in ("binary", "logits"):
            y = rng.integers(0, 2, size=(16, 1)).astype("float32")
            p = rng.uniform(size=(16, 1)).astype("float32")
            if kind == "logits":
                p = (p - 0.5) * 8
            w = rng.uniform(size=(16,)).astype("float32")
        elif kind == "ties":
            y = rng.integers(0, 2, size=(12,)).astype("float32")
            p = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=(12,)).astype("float32")
            w = rng.uniform(size=(12,)).astype("float32")
        elif kind == "multilabel":
            y = rng.integers(0, 2, size=(10, 3)).astype("float32")
            p = rng.uniform(size=(10, 3)).astype("float32")
            w = rng.uniform(size=(10,)).astype("float32")
        elif kind == "classes":
            labels = rng.integers(0, 3, size=(12,))
            y = np.eye(3, dtype="float32")[labels]
            p = rng.uniform(size=(12, 3)).astype("float32")
            w = rng.uniform(size=(12,)).astype("float32")
        else:  # sparse, sparse4: class ids
            n = 4 if kind == "sparse4" else 3
            y = rng.integers(0, n, size=(20,)).astype("int32")
            p = rng.integers(0, n, size=(20,)).astype("int32")
            w = rng.uniform(size=(20,)).astype("float32")
        batches.append((y.tolist(), p.tolist(), w.tolist()))
    return batches


def main():
    import keras

    values = {}
    for seed, (name, class_name, kwargs, kind) in enumerate(CASES):
        batches = data(kind, seed)
        results = {}
        for weighted in (False, True):
            metric = getattr(keras.metrics, class_name)(**kwargs)
            for y, p, w in batches:
                metric.update_state(np.asarray(y), np.asarray(p), sample_weight=np.asarray(w) if weighted else None)
            results["weighted" if weighted else "plain"] = np.asarray(metric.result()).tolist()
        values[name] = {"class": class_name, "kwargs": kwargs, "kind": kind, "seed": seed, **results}
    out = pathlib.Path(__file__).with_name("keras_metric_more_values.json")
    out.write_text(json.dumps(values, indent=1) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
