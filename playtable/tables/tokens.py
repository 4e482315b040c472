"""Secrets of seats and invitations: made, hashed for storage, compared in constant time."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping

from playtable.games import PLAYERS, Player

# 32 letters and digits without the look-alikes 0/o, 1/l: ids are read aloud and retyped.
ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
ID_LENGTH = 10  # 50 bits: collisions are retried, and an id is no secret anyway


def new_table_id() -> str:
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(ID_LENGTH))


def new_token() -> str:
    """A seat token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    """What the store keeps instead of a token: its SHA-256, hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def matches(token: str | None, stored_hash: str | None) -> bool:
    if not token or not stored_hash:
        return False
    return hmac.compare_digest(hash_token(token), stored_hash)


def derive(key: bytes | str, purpose: str) -> str:
    """A 192-bit secret that only the holder of ``key`` can compute again."""
    raw = key.encode() if isinstance(key, str) else key
    digest = hmac.new(raw, purpose.encode(), hashlib.sha256).digest()[:24]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def rematch_token(token: str, new_id: str) -> str:
    """The seat token at the rematch table ``new_id`` of the holder of ``token``: derived,
    so each player's page can be sent its own link without anything stored."""
    return derive(token, f"rematch:{new_id}")


def renewal_token(token: str, table_id: str, renewal: str) -> str:
    """The new seat key that the holder of ``token`` asks for with the continue page's
    form ``renewal`` (a random value of that page): derived, so that a retried form whose
    first answer was lost gets the same new key instead of losing the seat."""
    return derive(token, f"renew:{table_id}:{renewal}")


def seat_holding(seats: Mapping[Player, str], token: str | None) -> Player | None:
    """The seat whose stored hash ``token`` matches, if any."""
    found: Player | None = None
    # Compare against every seat so the time taken does not tell which one matched.
    for player in PLAYERS:
        if matches(token, seats.get(player)):
            found = player
    return found
