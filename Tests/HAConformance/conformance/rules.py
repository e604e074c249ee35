"""What HA does with a config its DISCOVERY_SCHEMA accepted, judged from HA's own tables.

A discovery schema that accepts a config is not the end: it removes unknown keys without a word
(REMOVE_EXTRA), an entity without unique_id never reaches the registry, some platforms refuse an
entity category when the entity is added, and the sensor base class refuses or complains about
unit, device_class and state_class combinations on every state. Each of those is a finding here,
so a publisher learns about it before a user does.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from . import ha
from .findings import Entity, Outcome


@cache
def _refuses_config_category(component: str) -> bool:
    return ha.refuses_config_category(component)


@cache
def _sensor_tables() -> tuple[set[Any], dict[Any, set[Any]], dict[Any, set[Any]], dict[Any, set[Any]]]:
    const = importlib.import_module("homeassistant.components.sensor.const")
    return (set(getattr(const, "NON_NUMERIC_DEVICE_CLASSES", set())),
            dict(getattr(const, "DEVICE_CLASS_UNITS", {})),
            dict(getattr(const, "DEVICE_CLASS_STATE_CLASSES", {})),
            # Only newer releases restrict units per state class (measurement_angle: °).
            dict(getattr(const, "STATE_CLASS_UNITS", {})))


def judge(outcome: Outcome, entity: Entity, sent: dict[str, Any], validated: dict[str, Any]) -> None:
    where = entity.where
    dropped = sorted(key for key in sent if key not in validated)
    for key in dropped:
        outcome.add("dropped-key", f"'{key}' is not an option of HA {ha.VERSION}'s {entity.component}: "
                                   "the schema removes it and HA ignores it", where)
    if entity.component not in ha.ENTITY_PLATFORMS:
        return
    if validated.get("unique_id"):
        entity.unique_id = str(validated["unique_id"])
    else:
        outcome.add("no-unique-id", "no unique_id: HA keeps the entity out of its registry, so it cannot be "
                                    "renamed or assigned in the UI and its device block is ignored", where)
    category = validated.get("entity_category")
    if category is not None and str(category) == "config" and _refuses_config_category(entity.component):
        outcome.add("refused-category", f"HA {ha.VERSION} refuses a {entity.component} with entity_category "
                                        "'config' when it is added (HomeAssistantError); use 'diagnostic' or none",
                    where)
    if entity.component == "sensor":
        _sensor(outcome, validated, where)


def _sensor(outcome: Outcome, config: dict[str, Any], where: str) -> None:
    non_numeric, class_units, class_state_classes, state_class_units = _sensor_tables()
    device_class = config.get("device_class")
    state_class = config.get("state_class")
    unit = config.get("unit_of_measurement")
    if device_class in non_numeric and unit:
        outcome.add("sensor-state-refused", f"device_class '{device_class}' is not numeric, so HA refuses every "
                                            f"state of a sensor with unit '{unit}'", where)
    if state_class in state_class_units and unit not in state_class_units[state_class]:
        allowed = sorted(str(u) for u in state_class_units[state_class])
        outcome.add("sensor-state-refused", f"state_class '{state_class}' allows only units {allowed}: HA refuses "
                                            f"every state with unit {unit!r}", where)
    if device_class in class_units and unit not in class_units[device_class]:
        allowed = sorted(str(u) if u else "no unit" for u in class_units[device_class])
        outcome.add("sensor-unit", f"unit {unit!r} is not valid for device_class '{device_class}' "
                                   f"(HA expects one of {allowed}); HA logs it, and from 2025.7 rejects the config",
                    where)
    if device_class and state_class and device_class in class_state_classes \
            and state_class not in class_state_classes[device_class]:
        allowed = sorted(str(s) for s in class_state_classes[device_class]) or ["none"]
        outcome.add("sensor-state-class", f"state_class '{state_class}' is impossible for device_class "
                                          f"'{device_class}' (HA expects {allowed}); HA logs a warning "
                                          "and keeps no long-term statistics right", where)


def unique_id_conflicts(outcomes: list[Outcome]) -> None:
    """HA keys entities by (platform, unique_id): a second discovery claiming one is ignored.

    The same topic sent again (an update, e.g. a new unit) is not a conflict: HA matches it to
    the entity it already has by its discovery id.
    """
    claimed: dict[tuple[str, str], tuple[str, str]] = {}  # (platform, unique_id) -> (discovery id, topic)
    for outcome in outcomes:
        for entity in outcome.entities:
            if entity.unique_id is None or not entity.accepted:
                continue
            key = (entity.component, entity.unique_id)
            first = claimed.setdefault(key, (entity.discovery_id, outcome.topic))
            if first[0] != entity.discovery_id:
                outcome.add("unique-id-conflict", f"{entity.component} unique_id '{entity.unique_id}' is already "
                                                  f"claimed by {first[1]}: HA ignores this entity", entity.where)
