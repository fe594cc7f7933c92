"""pygls's protocol, made to answer every request: one whose params do not fit the LSP types gets -32602.

pygls 2.1 fails to build such a request (`"textDocument": 5`, a negative `line`) while it reads
the message, logs it and sends nothing, so a client awaiting the reply waits for good. JSON-RPC
says a request always gets a response: here it is an "Invalid params" error (a notification,
which has no reply, is only logged as before). A body that is not JSON, or nested too deeply to
read (100,000 brackets), gets JSON-RPC's "Parse error" with a null id (`ParseErrorReply`).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol

INVALID_PARAMS = -32602  # JSON-RPC 2.0
PARSE_ERROR = -32700
log = logging.getLogger(__name__)


class _Answered:
    """Stands in for a request already answered with an error: pygls drops a message of an unknown jsonrpc version."""

    jsonrpc = "answered"


class AdvisorProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]):
        try:
            return super().structure_message(data)
        except Exception as e:
            if not isinstance(data, dict) or "method" not in data or "id" not in data or "jsonrpc" not in data:
                raise  # a notification or a response: nothing to answer
            cause = e.__cause__ or e
            log.warning("invalid params for %s: %s", data.get("method"), cause)
            self._send_response(
                data["id"],
                error=types.ResponseError(
                    code=INVALID_PARAMS,
                    message=f"Invalid params for {data.get('method')}: {type(cause).__name__}: {cause}"[:500],
                ),
            )
            return _Answered()


class ParseErrorReply:
    """For the server: what pygls only logs when a message body cannot be read is answered with -32700."""

    def report_server_error(self, error: Exception, source: Any) -> None:
        if isinstance(error, (json.JSONDecodeError, RecursionError)):  # the body, not a handler, failed
            log.warning("unreadable message: %s", type(error).__name__)
            message = f"Parse error: {type(error).__name__}: {error}"[:300]
            # A plain dict: JSON-RPC wants `"id": null` here, which pygls's message types leave out.
            reply = {"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": message}}
            self.protocol._send_data(reply)  # type: ignore[attr-defined]
            return
        super().report_server_error(error, source)  # type: ignore[misc]
