"""Every request gets an answer: one the server cannot read is answered with a JSON-RPC error.

pygls raises when a message's params do not have the types its method's are declared
with, and since that happens while reading the message it only logs it: the client waits
for an answer that never comes. `MetroProtocol` turns such a request into a
`REFUSED_FRAME` request carrying its id, and answers every `REFUSED_FRAME` request (these,
and those that `frames.py` puts in place of the frames it skips) with the error it names;
a body that is not JSON, JSON that is not a message, or a request after `shutdown`, is
answered the same way.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol.types import EXIT
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest

from metro.lsp.frames import INVALID_REQUEST, REFUSED_FRAME, refusal_request

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700  # JSON-RPC's code for a message that is not JSON


class MetroProtocol(LanguageServerProtocol):
    """pygls's protocol, but a request it cannot read is refused with an error, not dropped."""

    def structure_message(self, data: dict[str, Any]):
        """The message `data` as its type; a refusal for a request whose params are ill-typed."""
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            message_id = data.get("id")
            method = data.get("method")
            if not isinstance(method, str) or not isinstance(message_id, (int, str)):
                raise  # a notification or a response: no one waits for an answer
            reason = f"{error.message}: the params of '{method}' do not have the types it takes"
            return super().structure_message(refusal_request(message_id, reason, error.code))

    def handle_message(self, message) -> None:
        """Answer a refusal, or JSON that is no message, with its error; pass on the others."""
        if not hasattr(message, "jsonrpc"):  # JSON, but not a JSON-RPC message object
            found = message.get("id") if isinstance(message, dict) else None
            message_id = found if isinstance(found, (int, str)) else None
            self.refuse(message_id, "not a JSON-RPC message", INVALID_REQUEST)
        elif getattr(message, "method", None) == REFUSED_FRAME:
            params = message.params
            code = getattr(params, "code", INVALID_REQUEST)
            self.refuse(message.id, getattr(params, "reason", "refused"), code)
        elif self._shutdown and isinstance(message, RPCRequest) and message.method != EXIT:
            # pygls drops it; the LSP says a request after `shutdown` gets InvalidRequest
            self.refuse(message.id, "the server is shutting down", INVALID_REQUEST)
        else:
            super().handle_message(message)

    def refuse(self, message_id: int | str | None, reason: str, code: int) -> None:
        """Send the error answer `code` with `reason` to request `message_id` (None: unknown)."""
        logger.warning("refused a message: %s", reason)
        # Sent as a plain dict: pygls's converter leaves out an id of None, and JSON-RPC
        # wants `"id": null` in the answer to a message whose id could not be read.
        error = {"code": code, "message": reason}
        self._send_data({"jsonrpc": "2.0", "id": message_id, "error": error})
