"""Replays Taskline conformance transcripts against a server process (see ../README.md)."""
