"""Lets the tests import the runner's `replay` package from this folder, whatever pytest's import mode."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
