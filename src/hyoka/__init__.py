"""hyoka (評価): measure how well language models write Japanese.

The public API is re-exported here; everything else is internal and may change.
"""

from __future__ import annotations

__version__ = "0.1.0"
