"""The only package that touches the file system: every read and write of a project's
canonical files, brains, checkouts and Nexus runs happens in one of its modules."""
