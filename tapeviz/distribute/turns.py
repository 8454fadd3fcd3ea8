"""The replicas of one ``strategy.run``: one thread each, taking turns, so exactly one runs at a time.

Replica 0 runs until it returns or reaches a synchronizing call
(``all_reduce``, ``merge_call``); then replica 1 runs, and so on. When the
last replica reaches the synchronizing call, the values all of them brought
are combined once, and the turn goes back to replica 0. So the replicas
compute one after another, in order, as TF's would on separate devices, and
every run gives the same result. Each thread starts with its caller's
recording state (tapes, name scopes, traces: ``replicas.snapshot``).
"""

import threading

from tapeviz.core import replicas

__all__ = ["Turns"]


class _Aborted(Exception):
    """Another replica failed: this one stops where it waits."""


class Turns:
    """Runs ``count`` replica bodies in turn (see the module docstring).

    Args:
        count: how many replicas.
    """

    def __init__(self, count):
        self.count = count
        self._cond = threading.Condition(threading.RLock())
        self._turn = 0
        self._finished = [False] * count
        self._arrived = {}
        self._synced = [None] * count
        self._results = [None] * count
        self._error = None

    def run(self, bodies):
        """Run ``bodies[i]()`` as replica ``i``, in turn; their results in replica order.

        Args:
            bodies: one callable per replica, taking no arguments.

        Returns:
            A list of the bodies' results.

        Raises:
            Exception: the first error a replica raised (the others stop at their next turn).
        """
        saved = replicas.snapshot()
        threads = [
            threading.Thread(target=self._body, args=(i, body, saved), name=f"replica_{i}", daemon=True)
            for i, body in enumerate(bodies)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if self._error is not None:
            raise self._error
        return list(self._results)

    def _body(self, index, body, saved):
        replicas.restore(saved)
        try:
            with self._cond:
                self._wait_turn(index)
            result = body()
        except _Aborted:
            return
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread, raised there
            with self._cond:
                self._fail(error)
            return
        with self._cond:
            self._finished[index] = True
            self._results[index] = result
            if self._arrived:
                waiting = sorted(self._arrived)
                self._fail(
                    RuntimeError(
                        f"Replica {index} returned while replicas {waiting} wait at a synchronizing call "
                        "(all_reduce, merge_call): every replica must make the same synchronizing calls."
                    )
                )
                return
            self._pass_turn(index)

    def sync(self, index, value, combine):
        """Replica ``index`` waits here until every replica brought its ``value``; ``combine(values)`` runs once.

        Args:
            index: the calling replica.
            value: what it brings.
            combine: a function of the list of values (replica order), run by the last replica to arrive.

        Returns:
            What ``combine`` returned (the same object for every replica).
        """
        with self._cond:
            if any(self._finished):
                done = [i for i, f in enumerate(self._finished) if f]
                self._fail(
                    RuntimeError(
                        f"Replica {index} waits at a synchronizing call (all_reduce, merge_call) that replicas {done} "
                        "never made: every replica must make the same synchronizing calls."
                    )
                )
                raise _Aborted()
            self._arrived[index] = value
            if len(self._arrived) == self.count:
                values = [self._arrived[i] for i in range(self.count)]
                self._arrived = {}
                try:
                    combined = combine(values)
                except BaseException as error:  # noqa: BLE001 - every replica stops, the caller raises it
                    self._fail(error)
                    raise _Aborted() from error
                self._synced = [combined] * self.count
                self._turn = 0
                self._cond.notify_all()
            else:
                self._pass_turn(index)
            self._wait_turn(index)
            return self._synced[index]

    def _pass_turn(self, index):
        for step in range(1, self.count + 1):
            following = (index + step) % self.count
            if not self._finished[following]:
                self._turn = following
                break
        self._cond.notify_all()

    def _wait_turn(self, index):
        while self._turn != index and self._error is None:
            self._cond.wait()
        if self._error is not None:
            raise _Aborted()

    def _fail(self, error):
        if self._error is None:
            self._error = error
        self._cond.notify_all()
