"""What the check reports: findings, each with a severity and a stable code.

Severity is about what Home Assistant does with the message:
  error    HA creates no entity from it, or creates one and then refuses it at run time.
  warning  HA creates the entity, but silently loses or ignores part of what was published, or
           logs a complaint: the publisher meant something HA will not do.
  note     information only (a removal, a migration request); never fails a check.
Codes are part of the report's contract: tests and people can filter on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ERROR = "error"
WARNING = "warning"
NOTE = "note"

# code -> (severity, one line on what it means). Kept in one table so the README and --codes
# print the same list as the checks use.
CODES: dict[str, tuple[str, str]] = {
    "input": (ERROR, "the input line is not {\"topic\": ..., \"payload\": ...}"),
    "topic": (ERROR, "HA does not subscribe to the topic, or rejects it as an illegal discovery topic"),
    "json": (ERROR, "the payload is not a JSON object"),
    "origin": (ERROR, "the origin block fails HA's origin schema (HA drops the whole message)"),
    "device-discovery": (ERROR, "a device-based payload fails HA's device discovery schema"),
    "schema": (ERROR, "the platform's DISCOVERY_SCHEMA rejects the config (no entity is created)"),
    "refused-category": (ERROR, "entity_category: config on a platform whose entity refuses it when added"),
    "sensor-state-refused": (ERROR, "a sensor whose every state HA refuses (unit on a non-numeric device class, unit the state_class forbids)"),
    "dropped-key": (WARNING, "a key HA does not know: the schema removes it without a word (REMOVE_EXTRA)"),
    "no-unique-id": (WARNING, "no unique_id: no registry entry, no UI editing, the device block is ignored"),
    "unique-id-conflict": (WARNING, "two discovery topics claim one unique_id: HA ignores the later one"),
    "sensor-unit": (WARNING, "the unit is not one HA accepts for the sensor's device_class (an error from HA 2025.7)"),
    "sensor-state-class": (WARNING, "the state_class is impossible for the sensor's device_class"),
    "ha-log": (WARNING, "HA logged a warning while validating (deprecated option, bad unit, ...)"),
    "removal": (NOTE, "an empty payload: HA removes the entity"),
    "migration": (NOTE, "a migrate_discovery request: HA keeps the entity and ignores the rest"),
}


@dataclass
class Finding:
    code: str
    message: str
    where: str = ""  # e.g. "cmps.tilt" inside a device-based payload

    @property
    def severity(self) -> str:
        return CODES[self.code][0]

    def as_json(self) -> dict[str, str]:
        out = {"severity": self.severity, "code": self.code, "message": self.message}
        if self.where:
            out["where"] = self.where
        return out

    def as_text(self) -> str:
        where = f"[{self.where}] " if self.where else ""
        return f"{self.severity.upper()} {self.code}: {where}{self.message}"


@dataclass
class Entity:
    """One config HA would hand to a platform: a whole message, or one of a device's cmps."""

    component: str
    discovery_id: str  # HA's discovery id: "<node_id> <object_id>" or "<object_id>"
    where: str = ""
    unique_id: str | None = None
    accepted: bool = False  # the platform schema accepted it


@dataclass
class Outcome:
    """Everything the check learned about one input message."""

    line: int
    topic: str
    findings: list[Finding] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)

    def add(self, code: str, message: str, where: str = "") -> None:
        if code not in CODES:
            raise KeyError(f"unknown finding code {code!r}")
        self.findings.append(Finding(code, message, where))

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def conforms(self) -> bool:
        return self.count(ERROR) == 0
