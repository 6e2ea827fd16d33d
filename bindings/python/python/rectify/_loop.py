"""The validate → repair → feedback → retry loop from Python: your own function as the model
(:func:`validate_with_retry`), or a provider (:class:`Client`)."""

from __future__ import annotations

import concurrent.futures
import os
import sys
from typing import (
    TYPE_CHECKING,
    Any,
    Awaitable,
    Callable,
    Dict,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Type,
    TypeVar,
    Union,
    overload,
)

from . import _native
from ._errors import ConfigError, Exhausted, ProviderError, Refused
from ._schema import Shape, Validator, shape_of
from ._types import Attempt, Candidate, Diagnostic

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

FeedbackMode = Literal["prefix", "append", "suffix", "fresh"]
"""How a provider's messages carry the feedback: ``prefix`` puts a ``## PREVIOUS VALIDATION
FAILED`` block before the prompt, ``append`` adds the bad answer and the feedback as turns,
``suffix`` appends ``Feedback: ...``, ``fresh`` asks again without the bad answer. Your own
``execute`` function receives the feedback itself (the list of problems) whatever the mode."""

Execute = Callable[[Optional[str]], Union[str, Awaitable[str]]]
"""Your model: called with ``None`` first, then with the feedback on the previous answer; returns
the model's text (or an awaitable of it)."""

PathLike = Union[str, "os.PathLike[str]"]


def _refs(refs: Optional[Mapping[str, PathLike]]) -> Optional[Dict[str, str]]:
    return None if refs is None else {k: os.fspath(v) for k, v in refs.items()}


def _finish(outcome: Dict[str, Any], shape: Shape) -> Any:
    """The value of a valid outcome, or the exception that says why there is none."""
    attempts = [Attempt._from(a) for a in outcome["attempts"]]
    status = outcome["status"]
    if status == "valid":
        return shape.build(outcome["value"])
    # The class and the words are the core's (`rectify::failure_of`), as on the command line.
    kind, message = outcome["class"], outcome["message"]
    if kind == "exhausted":
        best = Candidate._from(outcome["best"]) if outcome["best"] else None
        diagnostics = [Diagnostic._from(d) for d in outcome["diagnostics"]]
        raise Exhausted(message, best=best, diagnostics=diagnostics, attempts=attempts)
    if kind == "refused":
        raise Refused(message, attempts=attempts)
    if kind == "provider":
        raise ProviderError(message, attempts=attempts)
    raise ConfigError(message)


class _Sync:
    """Runs what ``execute`` returns: a string as is, an awaitable on a private event loop."""

    def __init__(self, execute: Execute) -> None:
        self.execute = execute
        self.loop: Optional[asyncio.AbstractEventLoop] = None

    def __call__(self, feedback: Optional[str]) -> str:
        result = self.execute(feedback)
        if hasattr(result, "__await__"):
            if self.loop is None:
                import asyncio

                try:
                    asyncio.get_running_loop()
                except RuntimeError:
                    pass
                else:
                    close = getattr(result, "close", None)
                    if close is not None:
                        close()
                    raise ConfigError(
                        "execute is async and an event loop is running in this thread: "
                        "use `await rectify.avalidate_with_retry(...)`"
                    )
                self.loop = asyncio.new_event_loop()
            return self.loop.run_until_complete(_awaited(result))
        return result

    def close(self) -> None:
        if self.loop is not None:
            self.loop.close()


async def _awaited(result: Awaitable[str]) -> str:
    return await result


class _Threaded:
    """Runs ``execute`` for a loop driven from a worker thread: an awaitable goes back to the
    caller's event loop."""

    def __init__(self, execute: Execute, loop: asyncio.AbstractEventLoop) -> None:
        self.execute = execute
        self.loop = loop
        self.cancelled = False
        self.native = _native.Cancel()
        self.pending: Optional[concurrent.futures.Future[str]] = None

    def __call__(self, feedback: Optional[str]) -> str:
        import asyncio

        if self.cancelled:
            raise asyncio.CancelledError()
        result = self.execute(feedback)
        if hasattr(result, "__await__"):
            self.pending = asyncio.run_coroutine_threadsafe(_awaited(result), self.loop)
            return self.pending.result()
        return result

    def cancel(self) -> None:
        """Stops the run: the ``execute`` coroutine in flight is cancelled, no other call is
        made, and the engine drops its work."""
        self.cancelled = True
        self.native.cancel()
        if self.pending is not None:
            self.pending.cancel()


@overload
def validate_with_retry(
    execute: Execute,
    schema: Type[T],
    *,
    max_attempts: int = ...,
    feedback: FeedbackMode = ...,
    rules: Optional[PathLike] = ...,
    refs: Optional[Mapping[str, PathLike]] = ...,
    validators: Sequence[Callable[[T], object]] = ...,
    unsafe: bool = ...,
) -> T: ...
@overload
def validate_with_retry(
    execute: Execute,
    schema: Union[Mapping[str, Any], PathLike, None] = ...,
    *,
    max_attempts: int = ...,
    feedback: FeedbackMode = ...,
    rules: Optional[PathLike] = ...,
    refs: Optional[Mapping[str, PathLike]] = ...,
    validators: Sequence[Validator] = ...,
    unsafe: bool = ...,
) -> Any: ...
def validate_with_retry(
    execute: Execute,
    schema: Any = None,
    *,
    max_attempts: int = 3,
    feedback: FeedbackMode = "prefix",
    rules: Optional[PathLike] = None,
    refs: Optional[Mapping[str, PathLike]] = None,
    validators: Sequence[Any] = (),
    unsafe: bool = False,
) -> Any:
    """Calls ``execute`` until its answer passes every check, and returns the value.

    ``execute(feedback)`` is your model, agent or client: it is called with ``None`` first and,
    after an answer that failed, with the feedback on it (``Your previous answer did not pass
    validation. Fix these problems ...`` and one line per problem, to put before or after your
    prompt). It returns the text, or
    is ``async`` (run on a private event loop; inside a running loop use
    :func:`avalidate_with_retry`).

    Each answer is extracted from its prose and code fences and repaired deterministically
    (trailing commas, quotes, comments, truncation, ...), then checked: the JSON Schema of
    ``schema`` (a pydantic v2 model class, a dataclass, a JSON Schema dict or file), the
    ``rules`` file (with its reference documents ``refs``), then pydantic's validation — your
    model's own validators included — and ``validators`` (functions of the validated value that
    raise ``ValueError`` or ``AssertionError`` for a problem). Problems are fed back and
    ``execute`` asked again, up to ``max_attempts`` calls.

    Returns:
        the instance of ``schema`` (a type), or the value (a dict schema or none).

    Raises:
        Exhausted: no valid answer within ``max_attempts``; carries ``best``, ``diagnostics`` and
            ``attempts``.
        ConfigError: an invalid schema, rules file or option.
        Exception: whatever ``execute`` or a validator raised (other than the problems above),
            unchanged, with its traceback; the loop stops at once.
    """
    shape = shape_of(schema)
    call = _Sync(execute)
    try:
        outcome = _native.validate_with_retry(
            call,
            shape.json_schema,
            max_attempts=max_attempts,
            feedback=feedback,
            rules=None if rules is None else os.fspath(rules),
            refs=_refs(refs),
            validate=shape.validator(validators),
            unsafe_=unsafe,
        )
    finally:
        call.close()
    return _finish(outcome, shape)


@overload
async def avalidate_with_retry(
    execute: Execute,
    schema: Type[T],
    *,
    max_attempts: int = ...,
    feedback: FeedbackMode = ...,
    rules: Optional[PathLike] = ...,
    refs: Optional[Mapping[str, PathLike]] = ...,
    validators: Sequence[Callable[[T], object]] = ...,
    unsafe: bool = ...,
) -> T: ...
@overload
async def avalidate_with_retry(
    execute: Execute,
    schema: Union[Mapping[str, Any], PathLike, None] = ...,
    *,
    max_attempts: int = ...,
    feedback: FeedbackMode = ...,
    rules: Optional[PathLike] = ...,
    refs: Optional[Mapping[str, PathLike]] = ...,
    validators: Sequence[Validator] = ...,
    unsafe: bool = ...,
) -> Any: ...
async def avalidate_with_retry(
    execute: Execute,
    schema: Any = None,
    *,
    max_attempts: int = 3,
    feedback: FeedbackMode = "prefix",
    rules: Optional[PathLike] = None,
    refs: Optional[Mapping[str, PathLike]] = None,
    validators: Sequence[Any] = (),
    unsafe: bool = False,
) -> Any:
    """:func:`validate_with_retry` for async code: the engine runs on a worker thread, an
    ``async`` ``execute`` runs on the caller's event loop, and the loop stays free meanwhile.
    Cancelling the awaiting task cancels the ``execute`` coroutine in flight and stops the run."""
    import asyncio
    import functools

    loop = asyncio.get_running_loop()
    shape = shape_of(schema)
    call = _Threaded(execute, loop)
    run = functools.partial(
        _native.validate_with_retry,
        call,
        shape.json_schema,
        max_attempts=max_attempts,
        feedback=feedback,
        rules=None if rules is None else os.fspath(rules),
        refs=_refs(refs),
        validate=shape.validator(validators),
        unsafe_=unsafe,
        cancel=call.native,
    )
    try:
        outcome = await loop.run_in_executor(None, run)
    except asyncio.CancelledError:
        call.cancel()
        raise
    return _finish(outcome, shape)


class Client:
    """Asks a model until its answer passes every check: the same provider choice as
    ``rectify ask``.

    ``Client()`` (or :meth:`from_env`) takes the provider the environment names:
    ``RECTIFY_PROVIDER`` if set, else ``openai`` when ``OPENAI_API_KEY`` or ``OPENAI_BASE_URL`` is
    set, else ``anthropic`` when ``ANTHROPIC_API_KEY`` is set (``RECTIFY_MODEL`` names the model).
    ``Client("command", command=["my-agent", "--json"])`` runs a command-line agent with the
    prompt on its standard input; ``Client("openai", base_url=..., model=...)`` an
    OpenAI-compatible server. The embedded model (``"local"``) needs a build with the ``local``
    feature.

    Raises:
        ConfigError: no provider is configured, or a key or option is missing or wrong.
    """

    def __init__(
        self,
        provider: Optional[Literal["openai", "anthropic", "command", "local"]] = None,
        *,
        model: Optional[str] = None,
        base_url: Optional[str] = None,
        command: Optional[Sequence[str]] = None,
        max_attempts: int = 3,
        feedback: Optional[FeedbackMode] = None,
        system: Optional[str] = None,
    ) -> None:
        self._native = _native.NativeClient(
            provider, model=model, base_url=base_url, command=None if command is None else list(command)
        )
        self.max_attempts = max_attempts
        self.feedback = feedback
        self.system = system

    @classmethod
    def from_env(cls, *, max_attempts: int = 3, system: Optional[str] = None) -> Client:
        """The provider the environment names (see :class:`Client`)."""
        return cls(max_attempts=max_attempts, system=system)

    def __repr__(self) -> str:
        return repr(self._native)

    def _args(
        self,
        prompt: str,
        schema: Any,
        system: Optional[str],
        max_attempts: Optional[int],
        rules: Optional[PathLike],
        refs: Optional[Mapping[str, PathLike]],
        validators: Sequence[Any],
        unsafe: bool,
        cancel: Optional[_native.Cancel] = None,
    ) -> tuple[Shape, Callable[[], Dict[str, Any]]]:
        shape = shape_of(schema)
        validate = shape.validator(validators)

        def run() -> Dict[str, Any]:
            return self._native.run(
                prompt,
                shape.json_schema,
                system=system if system is not None else self.system,
                max_attempts=max_attempts or self.max_attempts,
                feedback=self.feedback,
                rules=None if rules is None else os.fspath(rules),
                refs=_refs(refs),
                validate=validate,
                unsafe_=unsafe,
                cancel=cancel,
            )

        return shape, run

    @overload
    def extract(
        self,
        schema: Type[T],
        prompt: str,
        *,
        system: Optional[str] = ...,
        max_attempts: Optional[int] = ...,
        rules: Optional[PathLike] = ...,
        refs: Optional[Mapping[str, PathLike]] = ...,
        validators: Sequence[Callable[[T], object]] = ...,
        unsafe: bool = ...,
    ) -> T: ...
    @overload
    def extract(
        self,
        schema: Union[Mapping[str, Any], PathLike, None],
        prompt: str,
        *,
        system: Optional[str] = ...,
        max_attempts: Optional[int] = ...,
        rules: Optional[PathLike] = ...,
        refs: Optional[Mapping[str, PathLike]] = ...,
        validators: Sequence[Validator] = ...,
        unsafe: bool = ...,
    ) -> Any: ...
    def extract(
        self,
        schema: Any,
        prompt: str,
        *,
        system: Optional[str] = None,
        max_attempts: Optional[int] = None,
        rules: Optional[PathLike] = None,
        refs: Optional[Mapping[str, PathLike]] = None,
        validators: Sequence[Any] = (),
        unsafe: bool = False,
    ) -> Any:
        """Asks ``prompt`` until the answer is a valid ``schema`` (checked as in
        :func:`validate_with_retry`) and returns it.

        Raises:
            Exhausted: no valid answer within the attempts (``best``, ``diagnostics``,
                ``attempts``).
            ProviderError: the provider failed after its transport retries.
            Refused: the model refused.
            ConfigError: a missing key, an invalid schema or option.
        """
        shape, run = self._args(prompt, schema, system, max_attempts, rules, refs, validators, unsafe)
        return _finish(run(), shape)

    @overload
    async def aextract(
        self,
        schema: Type[T],
        prompt: str,
        *,
        system: Optional[str] = ...,
        max_attempts: Optional[int] = ...,
        rules: Optional[PathLike] = ...,
        refs: Optional[Mapping[str, PathLike]] = ...,
        validators: Sequence[Callable[[T], object]] = ...,
        unsafe: bool = ...,
    ) -> T: ...
    @overload
    async def aextract(
        self,
        schema: Union[Mapping[str, Any], PathLike, None],
        prompt: str,
        *,
        system: Optional[str] = ...,
        max_attempts: Optional[int] = ...,
        rules: Optional[PathLike] = ...,
        refs: Optional[Mapping[str, PathLike]] = ...,
        validators: Sequence[Validator] = ...,
        unsafe: bool = ...,
    ) -> Any: ...
    async def aextract(
        self,
        schema: Any,
        prompt: str,
        *,
        system: Optional[str] = None,
        max_attempts: Optional[int] = None,
        rules: Optional[PathLike] = None,
        refs: Optional[Mapping[str, PathLike]] = None,
        validators: Sequence[Any] = (),
        unsafe: bool = False,
    ) -> Any:
        """:meth:`extract` for async code (the engine runs on a worker thread; the event loop
        stays free). Cancelling the awaiting task stops the call: a command agent's process is
        stopped, an HTTP request dropped."""
        import asyncio

        cancel = _native.Cancel()
        shape, run = self._args(
            prompt, schema, system, max_attempts, rules, refs, validators, unsafe, cancel
        )
        try:
            outcome = await asyncio.get_running_loop().run_in_executor(None, run)
        except asyncio.CancelledError:
            cancel.cancel()
            raise
        return _finish(outcome, shape)


if sys.version_info < (3, 9):  # pragma: no cover
    raise ImportError("rectify needs Python 3.9 or newer")
