#!/usr/bin/python3
"""migrate_concurrent: as migrate.check.py (same assertions), while
tier-touch's writer thread rewrites the buffer: afterwards every page is
internally consistent at a plausible generation, all on node 0, and the
writer really ran during the move (generations advanced)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import vmcheck  # noqa: E402

vmcheck.scenario_check("migrate").run("migrate_concurrent", True)
