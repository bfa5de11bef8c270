"""Errors a user can act on.

Everything we raise on purpose derives from ``SwebashError``; outside
exceptions are converted at the boundary that meets them (``raise X from exc``).
The CLI catches the base class and prints one line (a traceback only with
``--debug``)::

    SwebashError
     ├── ConfigError              bad file, key, type or value
     ├── UsageError               a wrong command line (exit code 2)
     │    └── AmbiguousSession    a session id prefix matching several (store/)
     ├── ImageError               an image to attach: missing, wrong type, too large
     ├── StorageError             the data directory or the sessions database
     │    └── SessionGone          the session was deleted while in use
     └── ProviderError            anything between us and the model
          ├── MissingApiKey        no key for the chosen provider
          ├── AuthenticationFailed 401 / 403
          ├── ModelNotFound        unknown model (404, or litellm cannot map it)
          ├── BadRequest           400 that is not one of the below
          │    ├── ContextTooLong  the request does not fit the model's window
          │    └── ImagesRefused   the model (or its server) takes no images
          ├── RateLimited          429 after our retries           (retryable)
          ├── ProviderUnavailable  5xx, overloaded, unreachable    (retryable)
          ├── StreamCut            the stream broke midway         (retryable
          │    │                   only if nothing was shown yet)
          │    └── StreamStalled   no complete event for stream_idle_timeout
          └── NotAStream           a 200 whose body is not the expected stream

``ToolFailed`` is apart from the tree: raised inside a tool (or the reader a tool
calls), it becomes the error result the model sees, never a line for the user.
"""

from __future__ import annotations


class SwebashError(Exception):
    """Base of every error we raise on purpose; ``str()`` is the one line shown."""

    exit_code: int = 1


def install_extra(extra: str) -> str:
    """How to add an optional part (pyproject's extras), as every message that
    needs one says it: ``pip install 'swebash-py[team]' (or ./scripts/install.sh
    --team)``."""
    return f"pip install 'swebash-py[{extra}]' (or ./scripts/install.sh --{extra})"


class ConfigError(SwebashError):
    """The configuration file, environment or flags hold something invalid."""


class UsageError(SwebashError):
    """The command line itself is wrong (exit code 2)."""

    exit_code = 2


class ImageError(SwebashError):
    """An image to attach cannot be: missing, not a supported type, too large."""


class StorageError(SwebashError):
    """The data directory or the sessions database cannot be used as it is:
    full disk, read-only or unusable directory, damaged or newer database.
    ``str()`` says where and what to do."""


class SessionGone(StorageError):
    """The session was deleted (by another ``ai``) while this one used it."""


class ProviderError(SwebashError):
    """Something went wrong talking to the model provider."""

    retryable: bool = False

    def __init__(self, message: str, *, status: int | None = None,
                 retry_after: float | None = None, retry_limit: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
        self.retry_limit = retry_limit  # at most this many retries (a refused connection: 1)


class MissingApiKey(ProviderError):
    """No API key is configured for the chosen provider."""


class AuthenticationFailed(ProviderError):
    """The provider rejected our credentials."""


class ModelNotFound(ProviderError):
    """The provider (or litellm) does not know the model."""


class BadRequest(ProviderError):
    """The provider refused the request as malformed."""


class ContextTooLong(BadRequest):
    """The conversation does not fit in the model's context window."""


class ImagesRefused(BadRequest):
    """The provider refused the request's images (a model without vision); the
    agent asks once more with notes instead (images.vision)."""


class RateLimited(ProviderError):
    """The provider asked us to slow down."""

    retryable = True


class ProviderUnavailable(ProviderError):
    """The provider is down, overloaded or unreachable."""

    retryable = True


class StreamCut(ProviderError):
    """The response stream ended before the model finished."""

    retryable = True


class StreamStalled(StreamCut):
    """No complete event arrived for ``stream_idle_timeout`` seconds. Not
    retried: a provider that went silent that long would make every wait
    that long again."""

    retryable = False


class NotAStream(ProviderError):
    """The provider answered 200 with something that is not the expected event
    stream (an HTML page from a proxy or a login portal, say)."""


class ToolFailed(Exception):
    """Raised inside a tool to return an error result with this message."""
