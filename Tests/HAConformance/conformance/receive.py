"""One discovery message, taken through the steps Home Assistant takes when it receives it.

The order follows homeassistant/components/mqtt/discovery.py: the topic must be one HA
subscribes to and match its TOPIC_MATCHER; an empty payload removes; the payload must be a JSON
object; abbreviations are expanded; the origin block is checked (HA drops the whole message if it
fails); a device-based payload is checked whole and split into its components, each inheriting
device, origin and the shared options; `~` is substituted; and last, the platform's
DISCOVERY_SCHEMA, the call HA makes before it creates the entity. What HA would do after that
(drop keys, refuse the entity when added, ...) is judged in rules.py.
"""

from __future__ import annotations

import copy
import logging
from contextlib import contextmanager
from typing import Any, Iterator

import voluptuous as vol
from homeassistant.util.json import json_loads_object
from paho.mqtt.matcher import MQTTMatcher

from . import ha, rules
from .findings import Entity, Outcome


class _Recorder(logging.Handler):
    """Keeps what HA logs at WARNING or above while it validates a config."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


_ha_logger = logging.getLogger("homeassistant")
# HA's complaints go to the report, not to stderr: no handler of ours prints them.
_ha_logger.propagate = False
_ha_logger.setLevel(logging.WARNING)


@contextmanager
def ha_log() -> Iterator[list[str]]:
    recorder = _Recorder()
    _ha_logger.addHandler(recorder)
    try:
        yield recorder.messages
    finally:
        _ha_logger.removeHandler(recorder)


class Receiver:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._subscribed = MQTTMatcher()
        for topic_filter in ha.subscriptions(prefix):
            self._subscribed[topic_filter] = True

    def receive(self, outcome: Outcome, payload: str) -> None:
        route = self._route(outcome)
        if route is None:
            return
        component, node_id, object_id = route
        if payload == "":
            outcome.add("removal", "empty payload: HA removes what this topic discovered")
            return
        try:
            data = json_loads_object(payload)
        except ValueError as error:
            outcome.add("json", f"HA cannot read the payload as a JSON object ({error}); it logs "
                                "'Unable to parse JSON' and ignores the message")
            return
        if ha.migration_request(data):
            outcome.add("migration", "migrate_discovery request: HA keeps the entities and ignores the rest")
            return
        if component == "device":
            self._device_based(outcome, data, node_id, object_id)
            return
        ha.expand_abbreviations(data)
        if "origin" in data and not self._origin_ok(outcome, data["origin"]):
            return
        discovery_id = f"{node_id} {object_id}" if node_id else object_id
        self._component(outcome, component, discovery_id, data, where="")

    def _route(self, outcome: Outcome) -> tuple[str, str | None, str] | None:
        """(component, node_id, object_id) if HA would process a message on this topic."""
        topic, prefix = outcome.topic, self.prefix
        if not next(self._subscribed.iter_match(topic), False):
            if not topic.startswith(prefix + "/"):
                outcome.add("topic", f"not under the discovery prefix '{prefix}/': HA never sees it "
                                     "(give --prefix if the publisher uses another one)")
                return None
            levels = topic[len(prefix) + 1:].split("/")
            if len(levels) in (3, 4) and levels[-1] == "config" and levels[0] not in ha.SUPPORTED_COMPONENTS:
                self._unsupported(outcome, levels[0])
                return None
            outcome.add("topic", f"HA subscribes only to {prefix}/<component>/[<node_id>/]<object_id>/config; "
                                 f"this topic has another shape")
            return None
        trimmed = topic.replace(f"{prefix}/", "", 1)
        match = ha.TOPIC_MATCHER.match(trimmed)
        if not match:
            outcome.add("topic", "HA logs 'Received message on illegal discovery topic': node_id and "
                                 "object_id may use only letters, digits, '_' and '-'")
            return None
        component, node_id, object_id = match.groups()
        if component != "device" and component not in ha.SUPPORTED_COMPONENTS:
            self._unsupported(outcome, component)
            return None
        if component == "device" and not ha.DEVICE_DISCOVERY:
            outcome.add("topic", f"device-based discovery ({prefix}/device/...) arrived in HA 2024.11; "
                                 f"HA {ha.VERSION} has none and ignores the message")
            return None
        return component, node_id, object_id

    def _unsupported(self, outcome: Outcome, component: str) -> None:
        extra = " (nor device-based discovery)" if component == "device" else ""
        outcome.add("topic", f"'{component}' is not a component HA {ha.VERSION}'s MQTT discovery supports"
                             f"{extra}; supported: {', '.join(ha.SUPPORTED_COMPONENTS)}")

    def _origin_ok(self, outcome: Outcome, origin: Any, where: str = "") -> bool:
        if ha.ORIGIN_SCHEMA is None:
            return True
        try:
            ha.ORIGIN_SCHEMA(copy.deepcopy(origin))
        except Exception as error:  # noqa: BLE001 - HA catches everything here too
            outcome.add("origin", f"origin {ha.humanize(origin, error) if isinstance(error, vol.Invalid) else error}: "
                                  "HA logs 'Unable to parse origin information' and drops the whole message", where)
            return False
        return True

    def _device_based(self, outcome: Outcome, data: dict[str, Any], node_id: str | None, object_id: str) -> None:
        ha.expand_abbreviations(data)
        try:
            # HA validates the whole payload but carries on with what was sent, not the result.
            ha.DEVICE_DISCOVERY_SCHEMA(copy.deepcopy(data))
        except vol.Invalid as error:
            outcome.add("device-discovery", f"{ha.humanize(data, error)}: HA logs 'Invalid MQTT device "
                                            "discovery payload' and creates none of its components")
            return
        for component_id, config in data["components"].items():
            config = dict(config)
            component = config.pop("platform")
            where = f"cmps.{component_id}"
            # The topic's object_id becomes each component's node_id; an extra node_id in the
            # topic is put in front of the component id.
            component_object_id = f"{node_id} {component_id}" if node_id else component_id
            discovery_id = f"{object_id} {component_object_id}"
            if not config:
                outcome.add("removal", f"only a platform: HA removes the {component} it discovered here", where)
                continue
            config["device"] = data["device"]
            config["origin"] = data.get("origin")
            ha.merge_shared_device_options(config, data)
            self._component(outcome, component, discovery_id, config, where)

    def _component(self, outcome: Outcome, component: str, discovery_id: str, config: dict[str, Any],
                   where: str) -> None:
        if ha.TOPIC_BASE in config:
            ha.replace_topic_base(config)
        entity = Entity(component=component, discovery_id=discovery_id, where=where)
        outcome.entities.append(entity)
        sent = copy.deepcopy(config)
        try:
            schema = ha.discovery_schema(component)
        except (ImportError, LookupError) as error:
            outcome.add("schema", f"cannot load HA's schema for {component}: {error}", where)
            return
        with ha_log() as logged:
            try:
                validated = schema(copy.deepcopy(config))
            except vol.Invalid as error:
                outcome.add("schema", f"{component}: {ha.humanize(sent, error)}; HA logs the error and "
                                      "creates no entity", where)
                validated = None
            except Exception as error:  # noqa: BLE001 - HA's helper re-raises these: no entity either
                outcome.add("schema", f"{component}: the schema raised {type(error).__name__}: {error}", where)
                validated = None
        for message in dict.fromkeys(logged):
            outcome.add("ha-log", f"HA logged: {message}", where)
        if validated is not None:
            entity.accepted = True
            rules.judge(outcome, entity, sent, validated)
