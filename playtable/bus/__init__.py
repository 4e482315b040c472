"""Fan-out of table events to every socket watching a table."""

from playtable.bus.base import DEFAULT_PREFIX, Bus, Presence, Subscription
from playtable.bus.memory import InProcessBus

__all__ = ["DEFAULT_PREFIX", "Bus", "InProcessBus", "Presence", "Subscription", "make_bus"]


def make_bus(
    redis_url: str | None, *, prefix: str | None = None, database_url: str | None = None
) -> Bus:
    """The Redis bus for a ``redis://`` URL, else the in-process bus. With a PostgreSQL
    ``database_url`` the Redis bus relays through PostgreSQL while Redis is away."""
    if not redis_url:
        return InProcessBus()
    from playtable.bus.redis import RedisBus
    from playtable.bus.relay import relay_url

    return RedisBus(redis_url, prefix=prefix or DEFAULT_PREFIX, relay_dsn=relay_url(database_url))
