"""``tf.events``: the hook bus. Subscribe a listener and hear what tapes record and sweep (docs/hooks.md).

``import tapeviz.events`` and ``from tapeviz.events import subscribe`` work as
the reference names them; the bus itself lives in the core
(``tapeviz.core.events``), and these are the same objects.
"""

from tapeviz.core.events import (
    ALL_EVENTS,
    BackwardStep,
    BackwardSteps,
    OpExecuted,
    OptimizerStep,
    SweepFinished,
    SweepStarted,
    TapeEntered,
    TapeExited,
    TapeReleased,
    VariableAssigned,
    Watched,
    listening,
    silenced,
    subscribe,
    unsubscribe,
)

__all__ = [
    "subscribe",
    "unsubscribe",
    "listening",
    "silenced",
    "ALL_EVENTS",
    "TapeEntered",
    "Watched",
    "OpExecuted",
    "VariableAssigned",
    "SweepStarted",
    "BackwardStep",
    "BackwardSteps",
    "SweepFinished",
    "TapeExited",
    "TapeReleased",
    "OptimizerStep",
]
