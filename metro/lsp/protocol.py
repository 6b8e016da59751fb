"""Every request gets an answer: one the server cannot read is answered with a JSON-RPC error.

pygls raises when a message's params do not have the types its method's are declared
with, and since that happens while reading the message it only logs it: the client waits
for an answer that never comes. `MetroProtocol` turns such a request into a
`REFUSED_FRAME` request carrying its id, and answers every `REFUSED_FRAME` request (these,
and those that `frames.py` puts in place of the frames it skips) with the error it names.
"""

from __future__ import annotations

import logging
from typing import Any

from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol

from metro.lsp.frames import INVALID_REQUEST, REFUSED_FRAME, refusal_request

logger = logging.getLogger(__name__)


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
        """Answer a refusal with its error; hand any other message to pygls."""
        if getattr(message, "method", None) != REFUSED_FRAME:
            super().handle_message(message)
            return
        params = message.params
        error = {
            "code": getattr(params, "code", INVALID_REQUEST),
            "message": getattr(params, "reason", "refused"),
        }
        logger.warning("refused a message: %s", error["message"])
        # Sent as a plain dict: pygls's converter leaves out an id of None, and JSON-RPC
        # wants `"id": null` in the answer to a message whose id could not be read.
        self._send_data({"jsonrpc": "2.0", "id": message.id, "error": error})
