"""SQLGenie: business questions to correct, efficient PostgreSQL SQL.

The command line (``sqlgenie``) is a thin layer over this library: every command
calls a function a user can import, e.g. ``sqlgenie.store.connect_store``,
``sqlgenie.executor.SafeExecutor``.
"""

__version__ = "0.1.0"
