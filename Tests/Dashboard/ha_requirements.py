"""Prints the Python requirements Home Assistant would pip-install for this check's integrations.

`hass --skip-pip` installs nothing, so the check installs them itself, pinned as the release pins
them: each integration's manifest `requirements`, for the integrations the configuration names,
the ones Home Assistant always sets up (bootstrap's DEFAULT_INTEGRATIONS) and the entity platforms
the MQTT discovery creates, following each manifest's `dependencies`. Run with the venv's Python;
the output goes to `pip install -c homeassistant/package_constraints.txt`.
"""
import json
import pathlib
import sys

import homeassistant
from homeassistant import bootstrap

components = pathlib.Path(homeassistant.__file__).parent / "components"
wanted = set(sys.argv[1:])
wanted |= set(bootstrap.CORE_INTEGRATIONS) | set(bootstrap.DEFAULT_INTEGRATIONS)

seen, requirements = set(), []
todo = sorted(wanted)
while todo:
    domain = todo.pop()
    if domain in seen:
        continue
    seen.add(domain)
    manifest = components / domain / "manifest.json"
    if not manifest.exists():
        continue
    data = json.loads(manifest.read_text())
    for requirement in data.get("requirements", []):
        if requirement not in requirements:
            requirements.append(requirement)
    todo.extend(d for d in data.get("dependencies", []) if d not in seen)
for requirement in requirements:
    print(requirement)
