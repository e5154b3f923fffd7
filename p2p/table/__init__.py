"""The replicated table (protocol.md §9): engine and card cryptography over the agreed order."""

from p2p.table.driver import SeatDriver
from p2p.table.intake import Intake
from p2p.table.machine import Applied, Refused, RoundOutcome, SeatLeft, Step, TableMachine, TableViolation
from p2p.table.messages import MESSAGES, intent_of, intent_payload

__all__ = [
    "MESSAGES",
    "Applied",
    "Intake",
    "Refused",
    "RoundOutcome",
    "SeatDriver",
    "SeatLeft",
    "Step",
    "TableMachine",
    "TableViolation",
    "intent_of",
    "intent_payload",
]
