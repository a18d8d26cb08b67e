#!/usr/bin/python3
"""migrate_concurrent: as migrate.check.py (same assertions), while
tier-touch's writer thread rewrites the buffer: afterwards every page is
internally consistent at a plausible generation, all on node 0, and the
writer really ran during the move (generations advanced)."""
import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "migrate_check", os.path.join(os.path.dirname(os.path.abspath(__file__)), "migrate.check.py"))
migrate_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(migrate_check)
migrate_check.run("migrate_concurrent", True)
