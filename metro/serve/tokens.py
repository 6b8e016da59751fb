"""Seat tokens: unguessable, from `secrets`, kept in the database only as their hashes."""

from __future__ import annotations

import hashlib
import secrets

TOKEN_BYTES = 24  # 192 random bits per seat


def new_token() -> str:
    """A fresh seat token, safe in a URL."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What the database keeps of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_match_id() -> str:
    """A fresh match id (unguessable too: it is what spectators need)."""
    return secrets.token_hex(8)
