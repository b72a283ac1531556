"""The one error the API answers with: an HTTP status and a JSON body naming the problem.

Every refusal of the server is an :class:`ApiError`, raised before anything changes, and
sent as ``{"error": code, "message": sentence}`` (plus ``details`` when there is more to
say, such as the legal moves). The codes are stable words a client can test; the message
is for people.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A request the server refuses; nothing was changed by it."""

    def __init__(self, status: int, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details

    def body(self) -> dict[str, Any]:
        """The JSON body of the response."""
        out: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


def bad_request(message: str, **details: Any) -> ApiError:
    """400: the request is not what the endpoint reads (a field missing or of a wrong type)."""
    return ApiError(400, "bad_request", message, **details)


def invalid(message: str, **details: Any) -> ApiError:
    """422: well-formed, but refused by the rules (an unknown rule option, a bad seat)."""
    return ApiError(422, "invalid", message, **details)


__all__ = ["ApiError", "bad_request", "invalid"]
