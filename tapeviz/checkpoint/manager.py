"""``tf.train.CheckpointManager`` and ``tf.train.latest_checkpoint``: numbered checkpoints in one folder."""

import os
import time

from tapeviz.checkpoint import files

__all__ = ["CheckpointManager", "latest_checkpoint"]


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint's prefix recorded in ``checkpoint_dir``'s state file, or None if there is none."""
    state = files.read_state(checkpoint_dir)
    latest = state and state["model_checkpoint_path"]
    if latest and os.path.exists(latest + files.INDEX_SUFFIX):
        return latest
    return None


class CheckpointManager:
    """Saves ``checkpoint`` as ``directory/<checkpoint_name>-<n>``, keeping the newest ``max_to_keep``.

    As TF's: ``save()`` numbers by the checkpoint's ``save_counter`` (or
    ``checkpoint_number``); with ``checkpoint_interval`` it saves only when
    ``step_counter`` has advanced that far since the last save and returns
    None otherwise. A new manager on a folder picks up the checkpoints its
    state file lists.
    """

    def __init__(
        self,
        checkpoint,
        directory,
        max_to_keep,
        keep_checkpoint_every_n_hours=None,
        checkpoint_name="ckpt",
        step_counter=None,
        checkpoint_interval=None,
        init_fn=None,
    ):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_checkpoint_step = None
        state = files.read_state(self._directory)
        self._kept = []  # (prefix, timestamp), oldest first
        self._last_preserved = time.time()
        if state:
            stamps = state["all_model_checkpoint_timestamps"]
            paths = state["all_model_checkpoint_paths"]
            now = time.time()
            for i, path in enumerate(paths):
                if os.path.exists(path + files.INDEX_SUFFIX):
                    self._kept.append((path, stamps[i] if i < len(stamps) else now))
            if state["last_preserved_timestamp"] is not None:
                self._last_preserved = state["last_preserved_timestamp"]

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def checkpoints(self):
        """The prefixes of the checkpoints kept, oldest first."""
        return [path for path, _ in self._kept]

    @property
    def latest_checkpoint(self):
        """The newest kept checkpoint's prefix, or None."""
        return self._kept[-1][0] if self._kept else None

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Save a new checkpoint and return its prefix (None if ``checkpoint_interval`` says not yet)."""
        if self._checkpoint_interval is not None:
            step = int(self._step_counter.numpy())
            last = self._last_checkpoint_step
            if check_interval and last is not None and step < last + self._checkpoint_interval:
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = (
            int(counter.numpy())
            if checkpoint_number is None
            else int(getattr(checkpoint_number, "numpy", lambda: checkpoint_number)())
        )
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        now = time.time()
        self._kept = [(p, t) for p, t in self._kept if p != path] + [(path, now)]
        stale = self._sweep()
        files.write_state(
            self._directory,
            path,
            self.checkpoints,
            [t for _, t in self._kept],
            self._last_preserved if self._keep_hours is not None else None,
        )
        for old in stale:  # after the state file stops naming them
            files.remove_checkpoint(old)
        return path

    def _sweep(self):
        """Drop the oldest checkpoints beyond ``max_to_keep`` (keeping one every n hours if asked); return them."""
        stale = []
        if self._max_to_keep is None:
            return stale
        while len(self._kept) > self._max_to_keep:
            path, stamp = self._kept.pop(0)
            if self._keep_hours is not None and stamp - self._last_preserved >= self._keep_hours * 3600:
                self._last_preserved = stamp
                continue
            stale.append(path)
        return stale

    def restore_or_initialize(self):
        """Restore the latest checkpoint and return its path; with none, run ``init_fn`` and return None."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest)
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None
