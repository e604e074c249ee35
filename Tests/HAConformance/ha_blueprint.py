"""Validates Plumb's automation blueprints with Home Assistant's own code.

  ha_blueprint.py --triggers JSON FILE...

For each blueprint file: HA's YAML loader (so !input parses), HA's blueprint schema for the
automation domain, the automation it makes with sample inputs (every input without a default
gets one of its selector's kind), HA's automation schema on that, and mqtt's device trigger
schema on every device trigger in it, whose (type, subtype) must be one Plumb publishes
(--triggers: a JSON list of [subtype, type] pairs). A line per file, then exit 0 when all pass,
1 when one does not, 2 on a usage error. Run it through ./ha-conformance blueprint.

What it cannot check without a running Home Assistant: that the device exists (HA's registry
check), which needs the real device; the project's dashboard check covers that.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import json
import sys
import tempfile
from typing import Any

try:
    import voluptuous as vol
    from homeassistant.components.blueprint import models
    from homeassistant.components.mqtt import device_trigger
    from homeassistant.const import __version__ as VERSION
    from homeassistant.core import HomeAssistant
    from homeassistant.util.yaml import load_yaml
except ImportError as error:
    print(f"ha-conformance blueprint: cannot load Home Assistant ({error}). Run it through the "
          "ha-conformance script beside this file, which installs it.", file=sys.stderr)
    sys.exit(2)

automation_config = importlib.import_module("homeassistant.components.automation.config")
SAMPLE_ACTION = [{"service": "persistent_notification.create", "data": {"message": "Plumb check"}}]
SAMPLE_DEVICE = "0123456789abcdef0123456789abcdef"


def sample(selector: dict[str, Any] | None) -> Any:
    """A value of the selector's kind, for an input without a default."""
    kind = next(iter(selector or {}), None)
    if kind == "device":
        return SAMPLE_DEVICE
    if kind == "number":
        options = (selector or {}).get("number") or {}
        return options.get("min", 1)
    if kind == "action":
        return SAMPLE_ACTION
    if kind in ("text", "entity"):
        return "sensor.plumb_check"
    if kind == "boolean":
        return True
    raise ValueError(f"no sample for a {kind!r} selector: add one to ha_blueprint.py")


def device_triggers(node: Any) -> list[dict[str, Any]]:
    """Every device trigger in a config, at any depth (wait_for_trigger too)."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if (node.get("platform") or node.get("trigger")) == "device":
            found.append(node)
        for value in node.values():
            found += device_triggers(value)
    elif isinstance(node, list):
        for item in node:
            found += device_triggers(item)
    return found


def check(path: str, pairs: set[tuple[str, str]]) -> list[str]:
    errors: list[str] = []
    data = load_yaml(path)
    schema = getattr(automation_config, "AUTOMATION_BLUEPRINT_SCHEMA", None)
    keywords: dict[str, Any] = {"path": path, "expected_domain": "automation"}
    if "schema" in inspect.signature(models.Blueprint.__init__).parameters and schema is not None:
        keywords["schema"] = schema
    try:
        blueprint = models.Blueprint(data, **keywords)
    except Exception as error:  # noqa: BLE001 - HA raises several kinds; each is the answer
        return [f"HA {VERSION} refuses the blueprint: {error}"]
    inputs = {}
    for key, spec in (blueprint.inputs or {}).items():
        spec = spec or {}
        if "default" not in spec:
            try:
                inputs[key] = sample(spec.get("selector"))
            except ValueError as error:
                return [str(error)]
    instance = models.BlueprintInputs(blueprint, {"use_blueprint": {"path": path, "input": inputs}})
    try:
        instance.validate()
        automation = instance.async_substitute()
    except Exception as error:  # noqa: BLE001
        return [f"the blueprint's inputs do not substitute: {error}"]
    automation = dict(automation)
    automation.pop("use_blueprint", None)
    try:
        automation_config.PLATFORM_SCHEMA(automation)
    except vol.Invalid as error:
        errors.append(f"HA {VERSION}'s automation schema refuses what it makes: {error}")
    triggers = device_triggers(automation)
    if not triggers:
        errors.append("it uses no device trigger of the Plumb device")
    for trigger in triggers:
        config = {key: value for key, value in trigger.items() if key not in ("id", "trigger")}
        config.setdefault("platform", "device")
        try:
            device_trigger.TRIGGER_SCHEMA(config)
        except vol.Invalid as error:
            errors.append(f"mqtt's device trigger schema refuses {trigger}: {error}")
        if (str(trigger.get("subtype")), str(trigger.get("type"))) not in pairs:
            errors.append(f"no Plumb device publishes the trigger subtype {trigger.get('subtype')!r}, "
                          f"type {trigger.get('type')!r}")
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(prog="ha-conformance blueprint")
    parser.add_argument("--triggers", required=True, help="JSON list of [subtype, type] pairs Plumb publishes")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    try:
        pairs = {(str(a), str(b)) for a, b in json.loads(args.triggers)}
    except (ValueError, TypeError) as error:
        print(f"ha-conformance blueprint: --triggers is not a JSON list of pairs: {error}", file=sys.stderr)
        return 2
    return asyncio.run(check_all(args.files, pairs))


async def check_all(files: list[str], pairs: set[tuple[str, str]]) -> int:
    """In a Home Assistant instance of its own: HA's helpers want one to exist (its frame helper)."""
    with tempfile.TemporaryDirectory(prefix="ha-blueprint-") as config:
        hass = HomeAssistant(config)
        frame = importlib.import_module("homeassistant.helpers.frame")
        if hasattr(frame, "async_setup"):
            frame.async_setup(hass)
        failed = 0
        try:
            for path in files:
                try:
                    errors = check(path, pairs)
                except Exception as error:  # noqa: BLE001 - unreadable YAML and the like
                    errors = [f"cannot be read as HA reads it: {error}"]
                if errors:
                    failed += 1
                    for error in errors:
                        print(f"{path}: {error}")
                else:
                    print(f"{path}: conforms (Home Assistant {VERSION})")
        finally:
            await hass.async_stop(force=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
