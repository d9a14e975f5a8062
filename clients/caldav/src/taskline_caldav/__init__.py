"""taskline-caldav: two-way sync of a Taskline database with a CalDAV collection (docs/caldav.md)."""

__version__ = "0.1.0"
