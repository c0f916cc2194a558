"""A circuit breaker per model backend (DESIGN 5).

States, with the default settings::

    closed     calls pass; 2 consecutive failures open the circuit
    open       calls fail at once with BackendUnavailable, for 60 s after the last failure
    half-open  after the cooldown calls pass again; a success closes the circuit,
               a failure opens it for another 60 s

The clock is injectable (``clock``, seconds, monotonic) so tests advance 60 s without sleeping.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Literal

from kb.errors import BackendUnavailable

log = logging.getLogger(__name__)

BREAKER_FAILURES = 2  # DESIGN 5: open after 2 consecutive failures
BREAKER_COOLDOWN_S = 60.0  # DESIGN 5: stay open for 60 s

BreakerState = Literal["closed", "open", "half-open"]


class CircuitBreaker:
    """Counts consecutive failures of one backend and stops calling it while it is down.

    Thread-safe. Callers ask ``before_call()`` first, then report ``record_success()`` or
    ``record_failure(reason)``.

    Args:
        backend: the backend's name, used in messages (e.g. ``ollama:nomic-embed-text``).
        failures: consecutive failures that open the circuit (at least 1).
        cooldown_s: seconds the circuit stays open before calls are tried again.
        clock: monotonic time in seconds.

    Raises:
        ValueError: ``failures`` below 1 or a negative ``cooldown_s``.
    """

    def __init__(self, backend: str, *, failures: int = BREAKER_FAILURES,
                 cooldown_s: float = BREAKER_COOLDOWN_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if failures < 1:
            raise ValueError("failures must be at least 1")
        if cooldown_s < 0:
            raise ValueError("cooldown_s must not be negative")
        self.backend = backend
        self.failures = failures
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._consecutive = 0
        self._opened_at: float | None = None
        self._last_reason = ""

    @property
    def state(self) -> BreakerState:
        """``closed``, ``open`` or ``half-open`` at the clock's current time."""
        with self._lock:
            return self._state()

    def _state(self) -> BreakerState:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at < self.cooldown_s:
            return "open"
        return "half-open"

    def before_call(self) -> None:
        """Let a call through unless the circuit is open.

        Raises:
            kb.errors.BackendUnavailable: the circuit is open; the message names the last
                failure and the seconds until the next try.
        """
        with self._lock:
            opened_at = self._opened_at
            if opened_at is None or self._state() != "open":
                return
            wait_s = self.cooldown_s - (self._clock() - opened_at)
            raise BackendUnavailable(
                f"{self.backend}: not called, circuit open after {self._consecutive} "
                f"consecutive failures (last: {self._last_reason}); next try in {wait_s:.0f} s",
                backend=self.backend)

    def record_success(self) -> None:
        """The backend answered: reset the failure count and close the circuit."""
        with self._lock:
            if self._opened_at is not None:
                log.info("%s: circuit closed, the backend answers again", self.backend)
            self._consecutive = 0
            self._opened_at = None

    def record_failure(self, reason: str) -> None:
        """The call failed; open the circuit at the threshold or when a half-open try fails.

        Args:
            reason: one line naming the failure, repeated in later ``BackendUnavailable``
                messages.
        """
        with self._lock:
            half_open = self._state() == "half-open"
            self._consecutive += 1
            self._last_reason = reason
            if half_open or self._consecutive >= self.failures:
                if self._opened_at is None or half_open:
                    # INFO: callers report the failures (degraded rungs, ingest report).
                    log.info("%s: circuit open for %.0f s after %d consecutive failures (%s)",
                             self.backend, self.cooldown_s, self._consecutive, reason)
                self._opened_at = self._clock()
