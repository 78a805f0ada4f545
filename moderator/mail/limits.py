"""Bounded cost per mail (issue 31, case 1): limits read on the raw bytes before any
parse, and a processing budget for what the limits do not foresee.

The standard library's header parsers are superlinear on some shapes: a Content-Type
of 150,000 parameters costs half a minute in `email`, a Subject of 100,000 encoded
words twenty seconds, and one such mail stalls every mail behind it. `over_limits`
counts what those parsers would chew on -- a header's size, the parameters of a MIME
header, the encoded words and addresses of a header -- with plain byte scans (linear,
a few milliseconds for a 10 MB mail), and names the first limit a mail goes over.
Such a mail is never handed to `email`: it is quarantined with that reason.

`budget` bounds the rest: the CPU seconds one mail may take in processing. When they
run out the processing thread gets `OverBudget` raised in it (CPython's asynchronous
exception, delivered between two bytecodes; one long C call, such as a regex, ends
first), the mail's transaction rolls back and the mail is quarantined with its reason.
"""

from __future__ import annotations

import contextlib
import ctypes
import heapq
import itertools
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType

__all__ = [
    "LIMITS",
    "Limits",
    "OverBudget",
    "budget",
    "over_limits",
]


@dataclass(frozen=True, slots=True)
class Limits:
    """What one mail's header may hold. Real mail stays far below each (a few
    parameters, a few encoded words, tens of addresses); each limit is set where the
    parsers still take well under a tenth of a second."""

    header_section_bytes: int = 1_048_576  # all header lines together
    header_bytes: int = 131_072  # one header, unfolded (a 100 KB Subject passes)
    header_fields: int = 10_000  # header lines
    parameters: int = 100  # ;-separated parameters of a Content-Type or -Disposition
    encoded_words: int = 2_000  # =?charset?x?...?= words in one header
    addresses: int = 2_000  # @ signs in one address header


LIMITS = Limits()

_HEADER_END_RE = re.compile(rb"\r?\n\r?\n|\r\r")
_FIELD_START_RE = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?![ \t])")
#: Headers of MIME parts anywhere in the mail: their parameters are parsed too.
_PART_PARAMETERS_RE = re.compile(
    rb"^content-(?:type|disposition)[ \t]*:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*", re.I | re.M)
_ADDRESS_HEADERS = frozenset({
    b"from", b"sender", b"reply-to", b"to", b"cc", b"bcc", b"delivered-to",
    b"x-original-to", b"return-path", b"resent-from", b"resent-sender", b"resent-to",
    b"resent-cc", b"resent-bcc", b"mail-followup-to", b"mail-reply-to",
    b"disposition-notification-to",
})


def over_limits(raw: bytes, limits: Limits | None = None) -> str | None:
    """Which limit RAW goes over, in words for the operator; None when within all
    (LIMITS by default). Reads bytes only: whatever RAW holds, this costs time linear
    in its size."""
    limits = limits or LIMITS
    found = _HEADER_END_RE.search(raw)
    head = raw[:found.start()] if found else raw
    if len(head) > limits.header_section_bytes:
        return (f"its header is {len(head):,} bytes, over the "
                f"{limits.header_section_bytes:,} read")
    fields = _FIELD_START_RE.split(head)
    if len(fields) > limits.header_fields:
        return f"it has {len(fields):,} header lines, over the {limits.header_fields:,} read"
    for field in fields:
        name = field.partition(b":")[0].strip().lower()
        shown = name[:40].decode("ascii", "replace") or "a header"
        if len(field) > limits.header_bytes:
            return (f"its {shown} header is {len(field):,} bytes, over the "
                    f"{limits.header_bytes:,} read")
        words = field.count(b"=?")
        if words > limits.encoded_words:
            return (f"its {shown} header has {words:,} encoded words, over the "
                    f"{limits.encoded_words:,} read")
        if name in _ADDRESS_HEADERS and (count := field.count(b"@")) > limits.addresses:
            return (f"its {shown} header has {count:,} addresses, over the "
                    f"{limits.addresses:,} read")
    for match in _PART_PARAMETERS_RE.finditer(raw):
        value = match.group(0)
        if len(value) > limits.header_bytes:
            return (f"a MIME header is {len(value):,} bytes, over the "
                    f"{limits.header_bytes:,} read")
        count = value.count(b";")
        if count > limits.parameters:
            name = value.partition(b":")[0].strip().decode("ascii", "replace")
            return (f"a {name} header has {count:,} parameters, over the "
                    f"{limits.parameters:,} read")
    return None


_AGAIN = 0.05  # seconds between raising OverBudget again until it lands


class OverBudget(BaseException):
    """Raised in the thread processing a mail when its CPU budget ran out. Not an
    Exception: the readers that go on without a broken field (`except Exception`)
    must not swallow it."""


_SET_ASYNC_EXC = ctypes.pythonapi.PyThreadState_SetAsyncExc
_SET_ASYNC_EXC.argtypes = (ctypes.c_ulong, ctypes.py_object)


def _raise_in(thread_id: int, exception: type[BaseException] | None) -> None:
    """Have THREAD_ID raise EXCEPTION at its next bytecode (None: forget a pending one)."""
    _SET_ASYNC_EXC(ctypes.c_ulong(thread_id),
                   ctypes.py_object(exception) if exception else ctypes.py_object())


#: Modules whose code runs finalizers and the hooks that report their errors: CPython
#: swallows an exception raised in a __del__, a weakref or gc callback (reports it as
#: unraisable), and one raised in the unraisable hook itself breaks the hook.
_FINALIZING_MODULES = ("weakref", "_weakrefset", "traceback", "linecache", "tokenize",
                       "warnings", "gc")
_FINALIZING_PACKAGES = ("_pytest.", "pytest.", "pluggy.", "hypothesis.")


def _interruptible(frame: FrameType | None, entry: FrameType) -> bool:
    """Whether the thread standing in FRAME may be interrupted for the block entered at
    ENTRY: no frame between them runs a finalizer or an error hook (an exception there
    is swallowed, or breaks the hook). Not found: yes (raise, as before)."""
    above: list[FrameType] = []
    while frame is not None and frame is not entry:
        above.append(frame)
        frame = frame.f_back
    if frame is None:
        return True  # the block's frame is not on the stack: nothing to tell by
    for frame in above:
        module = str(frame.f_globals.get("__name__", ""))
        if frame.f_code.co_name == "__del__" or module in _FINALIZING_MODULES or \
                module.startswith(_FINALIZING_PACKAGES):
            return False
    return True


class _Budget:
    """One block's budget: its thread, that thread's CPU clock and the clock's reading
    at which it runs out; whether the block is still open and whether OverBudget was
    raised in it."""

    __slots__ = ("clock", "entry", "fired", "limit", "open", "target")

    def __init__(self, target: int, entry: FrameType, seconds: float) -> None:
        self.target = target
        self.entry: FrameType | None = entry  # None once the block has ended
        self.clock = time.pthread_getcpuclockid(target)
        self.limit = time.clock_gettime(self.clock) + seconds
        self.open = True
        self.fired = False


class _Watchdog:
    """The one thread that looks at every open budget when it could have run out: a
    thread of its own for each mail (a `threading.Timer`) cost the processing thread
    its start, about 1.5% of a mail's processing under a burst (issue 33). Started
    with the first budget, it lives as long as the process (a daemon thread)."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self._due: list[tuple[float, int, _Budget]] = []  # a heap by wall-clock time
        self._order = itertools.count()  # ties: first come, first looked at
        self._thread: threading.Thread | None = None

    def arm(self, budget: _Budget, after: float) -> None:
        """Look at BUDGET again in AFTER seconds (wall clock: a thread spends at most
        that much CPU meanwhile). Called with `lock` held."""
        due = time.monotonic() + max(after, 0.01)
        earliest = not self._due or due < self._due[0][0]
        heapq.heappush(self._due, (due, next(self._order), budget))
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="mail-budget",
                                            daemon=True)
            self._thread.start()
        elif earliest:
            self.lock.notify()

    def _run(self) -> None:
        with self.lock:
            while True:
                while self._due and not self._due[0][2].open:
                    heapq.heappop(self._due)  # its block has ended
                if not self._due:
                    self.lock.wait()
                    continue
                wait = self._due[0][0] - time.monotonic()
                if wait > 0:
                    self.lock.wait(wait)
                    continue
                self._check(heapq.heappop(self._due)[2])

    def _check(self, budget: _Budget) -> None:
        left = 0.0 if budget.fired else budget.limit - time.clock_gettime(budget.clock)
        if left > 0:  # it waited meanwhile: look again when it could be spent
            self.arm(budget, left)
            return
        assert budget.entry is not None  # an open block's
        if not _interruptible(sys._current_frames().get(budget.target), budget.entry):
            self.arm(budget, _AGAIN)  # in a finalizer or an error hook: when it has left it
            return
        budget.fired = True
        _raise_in(budget.target, OverBudget)
        # Delivered inside a gc callback, a __del__ or a weakref callback all the
        # same (it entered one since it was looked at), CPython reports it as
        # unraisable and carries on: raise it again until it lands.
        self.arm(budget, _AGAIN)


_WATCHDOG = _Watchdog()


@contextlib.contextmanager
def budget(seconds: float | None) -> Iterator[None]:
    """Run the block with at most SECONDS of this thread's CPU time (None or 0: no
    limit); past them `OverBudget` is raised in it. CPU time, not wall time: a
    loaded machine or a wait for the disk does not count against the mail."""
    if not seconds:
        yield
        return
    # The frame of the `with` (above contextlib's __enter__).
    watched = _Budget(threading.get_ident(), sys._getframe(2), seconds)
    with _WATCHDOG.lock:
        _WATCHDOG.arm(watched, seconds)
    try:
        yield
    finally:
        with _WATCHDOG.lock:
            watched.open = False
            watched.entry = None  # its frame (and the frame's locals) not kept meanwhile
            if watched.fired:
                _raise_in(watched.target, None)  # the block ended before it was delivered
