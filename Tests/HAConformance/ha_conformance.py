"""Plumb's Home Assistant MQTT discovery conformance check.

Reads discovery messages as JSON lines, {"topic": "...", "payload": "..."} (payload a string as
published, "" for a removal; a JSON object is accepted too and sent as its compact text), takes
each through Home Assistant's own code (see conformance/receive.py), and writes one JSON report.

Run it through ./ha-conformance, which installs Home Assistant into a cached virtualenv first.
Exit status: 0 every message conforms, 1 at least one does not (--strict: or has a warning),
2 usage or set-up error. --allow RELEASE:OBJECT_ID:CODE:TEXT sets aside one known, harmless warning
of one Home Assistant release (reported as allowed, never counted), so --strict still fails on
any other.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
import tempfile
from typing import Any, TextIO

try:
    from conformance import ha
    from conformance.findings import CODES, ERROR, WARNING, Outcome
    from conformance.receive import Receiver
    from conformance import rules
except ImportError as error:
    print(f"ha-conformance: cannot load Home Assistant ({error}). Run the check through the "
          "ha-conformance script beside this file, which installs it.", file=sys.stderr)
    sys.exit(2)


def read_messages(stream: TextIO) -> list[tuple[Outcome, str | None]]:
    """(outcome, payload) per non-blank line; payload None when the line itself is unusable."""
    messages: list[tuple[Outcome, str | None]] = []
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError as error:
            outcome = Outcome(number, "")
            outcome.add("input", f"line {number} is not JSON ({error}): give one "
                                 '{"topic": ..., "payload": ...} object per line')
            messages.append((outcome, None))
            continue
        topic = item.get("topic") if isinstance(item, dict) else None
        payload = item.get("payload", "") if isinstance(item, dict) else None
        if payload is None and isinstance(item, dict):
            payload = ""
        if isinstance(payload, (dict, list)):
            payload = json.dumps(payload, separators=(",", ":"))
        if not isinstance(topic, str) or not isinstance(payload, str):
            outcome = Outcome(number, topic if isinstance(topic, str) else "")
            outcome.add("input", f"line {number} needs a string 'topic' and a string (or object) 'payload'")
            messages.append((outcome, None))
            continue
        messages.append((Outcome(number, topic), payload))
    return messages


async def check(messages: list[tuple[Outcome, str | None]], prefix: str) -> list[Outcome]:
    # cv.template and friends look up the running HomeAssistant (a thread-local set when the
    # object is made, on the event loop's thread). A bare one is enough: nothing is started,
    # loaded or written, and its config folder is a throwaway.
    from homeassistant.core import HomeAssistant
    with tempfile.TemporaryDirectory(prefix="ha-conformance-") as config_dir:
        hass = HomeAssistant(config_dir)
        try:
            from homeassistant.helpers import frame
            frame.async_setup(hass)  # so HA's usage reports have a hass to report to
        except (ImportError, AttributeError):
            pass
        receiver = Receiver(prefix)
        for outcome, payload in messages:
            if payload is not None:
                receiver.receive(outcome, payload)
        outcomes = [outcome for outcome, _ in messages]
        rules.unique_id_conflicts(outcomes)
        return outcomes


def report(outcomes: list[Outcome], prefix: str) -> dict[str, Any]:
    return {
        "checker": "ha-conformance",
        "home_assistant": ha.VERSION,
        "python": platform.python_version(),
        "prefix": prefix,
        "device_discovery": ha.DEVICE_DISCOVERY,
        "summary": {
            "messages": len(outcomes),
            "conforming": sum(1 for o in outcomes if o.conforms),
            "errors": sum(o.count(ERROR) for o in outcomes),
            "warnings": sum(o.count(WARNING) for o in outcomes),
        },
        "messages": [{
            "line": o.line,
            "topic": o.topic,
            "conforms": o.conforms,
            "entities": [{"component": e.component, "discovery_id": e.discovery_id, "unique_id": e.unique_id,
                          **({"where": e.where} if e.where else {})} for e in o.entities],
            "findings": [f.as_json() for f in o.findings],
        } for o in outcomes],
    }


def write_text(outcomes: list[Outcome], out: TextIO) -> None:
    for o in outcomes:
        state = "ok  " if o.conforms else "FAIL"
        out.write(f"{state} line {o.line} {o.topic or '(no topic)'}\n")
        for finding in o.findings:
            out.write(f"     {finding.as_text()}\n")


def parse_allowance(text: str) -> tuple[str, str, str, str]:
    parts = text.split(":", 3)
    if len(parts) != 4 or not all(parts[:3]):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not RELEASE:OBJECT_ID:CODE:TEXT, e.g. 2024.3.3:vibration_zone:dropped-key:'options'")
    return parts[0], parts[1], parts[2], parts[3]


def set_aside(outcomes: list[Outcome], allowances: list[tuple[str, str, str, str]]) -> list[tuple[int, str]]:
    """Removes the warnings an allowance names for this release; returns them, by line, as text."""
    allowed: list[tuple[int, str]] = []
    for o in outcomes:
        object_id = o.topic.split("/")[-2] if o.topic.count("/") >= 2 else ""
        kept = []
        for finding in o.findings:
            if finding.severity == WARNING and any(
                    release == ha.VERSION and oid == object_id and code == finding.code and text in finding.message
                    for release, oid, code, text in allowances):
                allowed.append((o.line, finding.as_text()))
            else:
                kept.append(finding)
        o.findings = kept
    return allowed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ha-conformance check", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", default="-", help="JSON lines to check (default: stdin)")
    parser.add_argument("--prefix", default="homeassistant", help="the discovery prefix (default: %(default)s)")
    parser.add_argument("--text", action="store_true", help="a line per message and finding instead of JSON")
    parser.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    parser.add_argument("--codes", action="store_true", help="list the finding codes and exit")
    parser.add_argument("--allow", action="append", default=[], type=parse_allowance, metavar="RELEASE:OBJECT_ID:CODE:TEXT",
                        help="set aside one known warning of one release (repeatable)")
    args = parser.parse_args(argv)
    if args.codes:
        for code, (severity, meaning) in CODES.items():
            print(f"{code:22} {severity:8} {meaning}")
        return 0
    try:
        if args.file == "-":
            messages = read_messages(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as stream:
                messages = read_messages(stream)
    except OSError as error:
        print(f"ha-conformance: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"ha-conformance: {args.file} is not UTF-8 text ({error})", file=sys.stderr)
        return 2
    if not messages:
        print('ha-conformance: no messages to check: give one {"topic": ..., "payload": ...} JSON object '
              "per line, on stdin or in a file", file=sys.stderr)
        return 2
    outcomes = asyncio.run(check(messages, args.prefix))
    for line, text in set_aside(outcomes, args.allow):
        print(f"ha-conformance: line {line}: allowed: {text}", file=sys.stderr)
    if args.text:
        write_text(outcomes, sys.stdout)
    else:
        json.dump(report(outcomes, args.prefix), sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    summary = report(outcomes, args.prefix)["summary"]
    print(f"ha-conformance: Home Assistant {ha.VERSION}: {summary['messages']} messages, "
          f"{summary['conforming']} conform, {summary['errors']} errors, {summary['warnings']} warnings",
          file=sys.stderr)
    if summary["errors"] or (args.strict and summary["warnings"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
