"""The exceptions of rectify: one base class, four kinds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

if TYPE_CHECKING:
    from ._types import Attempt, Candidate, Diagnostic


class Error(Exception):
    """The base class of every exception rectify raises."""


class ConfigError(Error):
    """The setup is wrong: an invalid schema or rules file, no provider configured, a missing
    key, an unknown option. Nothing was asked of a model (or the provider could not start)."""


class ProviderError(Error):
    """The provider failed after its transport retries (a server that answers 5xx, a command
    agent that exits non-zero, a connection refused).

    Attributes:
        best: the best answer of the attempts made before, if any.
        attempts: every attempt made.
    """

    def __init__(
        self,
        message: str,
        *,
        best: Optional[Candidate] = None,
        attempts: Sequence[Attempt] = (),
    ) -> None:
        super().__init__(message)
        self.best = best
        self.attempts = list(attempts)


class Exhausted(Error):
    """No valid answer within the attempts: the best candidate, its problems and every attempt,
    for a person (or a bigger model) to decide.

    Attributes:
        best: the answer with the fewest errors (its ``value`` is the repaired value, ``raw`` the
            text as received), ``None`` when no attempt was made.
        diagnostics: the problems left in the best answer.
        attempts: every attempt, in order, with the feedback each one received.
    """

    def __init__(
        self,
        message: str,
        *,
        best: Optional[Candidate],
        diagnostics: Sequence[Diagnostic],
        attempts: Sequence[Attempt],
    ) -> None:
        super().__init__(message)
        self.best = best
        self.diagnostics = list(diagnostics)
        self.attempts = list(attempts)

    def __reduce__(self) -> Any:
        return (_exhausted, (str(self), self.best, self.diagnostics, self.attempts))


def _exhausted(message: str, best: Any, diagnostics: Any, attempts: Any) -> Exhausted:
    return Exhausted(message, best=best, diagnostics=diagnostics, attempts=attempts)


class Refused(Error):
    """The model refused to answer.

    Attributes:
        attempts: every attempt made.
    """

    def __init__(self, message: str, *, attempts: Sequence[Attempt] = ()) -> None:
        super().__init__(message)
        self.attempts = list(attempts)


__all__ = ["Error", "ConfigError", "ProviderError", "Exhausted", "Refused"]
