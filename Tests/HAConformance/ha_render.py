"""Renders discovery templates with Home Assistant's own template engine, as its MQTT entities do.

Reads JSON lines {"template": "...", "payload": "..."} (payload the MQTT message's text) and writes
one JSON line per input: {"rendered": "..."} or {"error": "..."}. The rendering is MQTT's: the
payload parsed as JSON into value_json when it is JSON, and `value` always
(Template.async_render_with_possible_json_value). Run it through ./ha-conformance render.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile

try:
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.template import Template
except ImportError as error:
    print(f"ha-conformance render: cannot load Home Assistant ({error}). Run it through the "
          "ha-conformance script beside this file, which installs it.", file=sys.stderr)
    sys.exit(2)

_FAILED = object()


async def render(lines: list[str]) -> list[dict[str, str]]:
    with tempfile.TemporaryDirectory(prefix="ha-render-") as config:
        hass = HomeAssistant(config)
        results: list[dict[str, str]] = []
        try:
            for number, line in enumerate(lines, start=1):
                try:
                    item = json.loads(line)
                    template, payload = item["template"], item["payload"]
                    if not isinstance(template, str) or not isinstance(payload, str):
                        raise TypeError("template and payload must be strings")
                except (ValueError, KeyError, TypeError) as error:
                    results.append({"error": f"line {number}: {error}"})
                    continue
                try:
                    rendered = Template(template, hass).async_render_with_possible_json_value(payload, _FAILED)
                except Exception as error:  # noqa: BLE001 - the error is the answer
                    results.append({"error": f"{type(error).__name__}: {error}"})
                    continue
                if rendered is _FAILED:
                    results.append({"error": "the template failed to render (HA logs it and ignores the message)"})
                else:
                    results.append({"rendered": str(rendered)})
        finally:
            await hass.async_stop(force=True)
    return results


def main() -> int:
    lines = [line for line in sys.stdin if line.strip()]
    for result in asyncio.run(render(lines)):
        print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
