"""Fan-out of table events to every socket watching a table."""

from playtable.bus.base import Bus, Subscription
from playtable.bus.memory import InProcessBus

__all__ = ["Bus", "InProcessBus", "Subscription"]
