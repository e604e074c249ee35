"""The installed Home Assistant, seen through one interface whatever its release.

The check calls Home Assistant's own functions and schemas wherever the installed release has
them as names it can import. Two releases are supported, and they differ in shape:

  2025.4.4 (Python 3.13)  discovery.py has _replace_all_abbreviations, _replace_topic_base,
                          _merge_common_device_options, migration requests, and schemas.py has
                          MQTT_ORIGIN_INFO_SCHEMA and device-based discovery (DEVICE_DISCOVERY_SCHEMA);
                          HA subscribes one pair of wildcards per supported component.
  2024.3.3 (Python 3.11)  those steps are written inline in the message callback, so they cannot
                          be called; the fallbacks below do what that inline code does. HA
                          subscribes <prefix>/+/+/config and <prefix>/+/+/+/config and then drops
                          unsupported components. There is no device-based discovery.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

import voluptuous as vol
from homeassistant.components.mqtt import abbreviations, discovery
from homeassistant.const import __version__ as VERSION
from homeassistant.helpers import config_validation as cv

_const = importlib.import_module("homeassistant.components.mqtt.const")
try:
    _schemas = importlib.import_module("homeassistant.components.mqtt.schemas")
except ImportError:  # before 2024.11 the shared schemas lived in mixins.py
    _schemas = None

TOPIC_BASE = "~"
TOPIC_MATCHER = discovery.TOPIC_MATCHER
# Moved from discovery.py to const.py over the releases; both are HA's own list.
SUPPORTED_COMPONENTS: tuple[str, ...] = tuple(
    sorted(getattr(_const, "SUPPORTED_COMPONENTS", None) or discovery.SUPPORTED_COMPONENTS))
# Platforms whose configs become entities (and so want a unique_id); device_automation and tag
# do not. Older releases have no such list: everything but those two.
ENTITY_PLATFORMS: frozenset[str] = frozenset(
    str(p) for p in getattr(_const, "ENTITY_PLATFORMS", None)
    or [c for c in SUPPORTED_COMPONENTS if c not in ("device_automation", "tag")])

ORIGIN_SCHEMA = getattr(_schemas, "MQTT_ORIGIN_INFO_SCHEMA", None) \
    or getattr(discovery, "MQTT_ORIGIN_INFO_SCHEMA", None)
DEVICE_DISCOVERY_SCHEMA = getattr(_schemas, "DEVICE_DISCOVERY_SCHEMA", None)
SHARED_OPTIONS: list[str] = list(getattr(_schemas, "SHARED_OPTIONS", []))
DEVICE_DISCOVERY = DEVICE_DISCOVERY_SCHEMA is not None


def subscriptions(prefix: str) -> list[str]:
    """The topic filters HA subscribes to for discovery: a message elsewhere never reaches it."""
    if hasattr(discovery, "_replace_all_abbreviations"):  # the per-component style
        filters = [f"{prefix}/{c}/+/config" for c in SUPPORTED_COMPONENTS]
        filters += [f"{prefix}/{c}/+/+/config" for c in SUPPORTED_COMPONENTS]
        if DEVICE_DISCOVERY:
            filters += [f"{prefix}/device/+/config", f"{prefix}/device/+/+/config"]
        return filters
    return [f"{prefix}/+/+/config", f"{prefix}/+/+/+/config"]


def _expand_keys(block: Any, table: dict[str, str]) -> None:
    if isinstance(block, dict):
        for short in [k for k in block if k in table]:
            block[table[short]] = block.pop(short)


def expand_abbreviations(payload: dict[str, Any]) -> None:
    """HA's abbreviation expansion of a whole discovery payload, in place."""
    if hasattr(discovery, "_replace_all_abbreviations"):
        discovery._replace_all_abbreviations(payload)
        return
    # 2024.3.3's inline code: top-level keys, then device, origin and availability entries.
    _expand_keys(payload, abbreviations.ABBREVIATIONS)
    _expand_keys(payload.get("device"), abbreviations.DEVICE_ABBREVIATIONS)
    _expand_keys(payload.get("origin"), getattr(abbreviations, "ORIGIN_ABBREVIATIONS", {}))
    if "availability" in payload:
        for entry in cv.ensure_list(payload["availability"]):
            _expand_keys(entry, abbreviations.ABBREVIATIONS)


def replace_topic_base(payload: dict[str, Any]) -> None:
    """HA's `~` substitution in *topic options and availability topics, in place."""
    if hasattr(discovery, "_replace_topic_base"):
        discovery._replace_topic_base(payload)
        return
    base = payload.pop(TOPIC_BASE)

    def substitute(value: str) -> str:
        # Each end is tested on the original value and the second test wins, as in HA's code:
        # so "~/x/~" becomes "~/x/<base>", not "<base>/x/<base>".
        result = value
        if value[0] == TOPIC_BASE:
            result = base + value[1:]
        if value[-1] == TOPIC_BASE:
            result = value[:-1] + base
        return result

    for key, value in list(payload.items()):
        if key.endswith("topic") and isinstance(value, str) and value:
            payload[key] = substitute(value)
    if payload.get("availability"):
        for entry in cv.ensure_list(payload["availability"]):
            if isinstance(entry, dict) and (topic := str(entry.get("topic"))):
                entry["topic"] = substitute(topic)


def migration_request(payload: dict[str, Any]) -> bool | None:
    """True for a valid migrate_discovery request, False for an invalid one, None otherwise.

    Releases without discovery migration treat the key as an ordinary (unknown) option.
    """
    process = getattr(discovery, "_async_process_discovery_migration", None)
    if process is None or not ({"migrate_discovery", "migr_discvry"} & set(payload)):
        return None
    wrapped = discovery.MQTTDiscoveryPayload(payload)
    return bool(process(wrapped))


def merge_shared_device_options(component: dict[str, Any], device_payload: dict[str, Any]) -> None:
    """Options set once on a device-based payload that each component inherits."""
    merge = getattr(discovery, "_merge_common_device_options", None)
    if merge is not None:
        merge(component, device_payload)
        return
    for option in SHARED_OPTIONS:
        if option in device_payload and option not in component:
            component[option] = device_payload[option]


def discovery_schema(component: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The schema HA applies to a discovered config before it creates the entity.

    Every MQTT platform module passes its DISCOVERY_SCHEMA to the setup helper (for light it
    lives in the light package, which dispatches on `schema` itself).
    """
    module = importlib.import_module(f"homeassistant.components.mqtt.{component}")
    schema = getattr(module, "DISCOVERY_SCHEMA", None)
    if schema is None:
        raise LookupError(f"homeassistant.components.mqtt.{component} has no DISCOVERY_SCHEMA")
    if component == "device_automation":
        return _device_automation_schema(schema)
    return schema


def _device_automation_schema(base: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """device_automation's DISCOVERY_SCHEMA checks only automation_type (and allows anything else);
    a trigger is then validated by device_trigger's TRIGGER_DISCOVERY_SCHEMA when HA sets it up,
    which removes unknown keys silently. Both, in that order, as HA applies them."""
    trigger = importlib.import_module("homeassistant.components.mqtt.device_trigger").TRIGGER_DISCOVERY_SCHEMA

    def validate(config: dict[str, Any]) -> dict[str, Any]:
        checked = base(config)
        if checked.get("automation_type") == "trigger":
            return trigger(config)
        return checked

    return validate


def refuses_config_category(component: str) -> bool:
    """Whether this platform's entity class raises when added with entity_category: config.

    Read from the entity class itself so that the rule follows the installed release: sensor and
    binary_sensor raise HomeAssistantError in async_internal_added_to_hass.
    """
    try:
        module = importlib.import_module(f"homeassistant.components.{component}")
    except ImportError:
        return False
    for value in vars(module).values():
        added = getattr(value, "async_internal_added_to_hass", None)
        if inspect.isclass(value) and value.__module__ == module.__name__ and added is not None:
            try:
                source = inspect.getsource(added)
            except (OSError, TypeError):
                continue
            if "EntityCategory.CONFIG" in source:
                return True
    return False


def humanize(data: Any, error: vol.Invalid) -> str:
    """HA's own wording for a schema error, with the offending value where it can be found."""
    from voluptuous.humanize import humanize_error
    try:
        return humanize_error(data, error)
    except Exception:  # noqa: BLE001 - the wording is a nicety; the error itself is what counts
        return str(error)
