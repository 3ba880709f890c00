class MemError(Exception):
    """A problem the user can fix; the message is shown as is."""
