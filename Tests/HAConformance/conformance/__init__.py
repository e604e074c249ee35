"""Plumb's Home Assistant conformance check, in steps; see ../README.md."""
