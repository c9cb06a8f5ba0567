"""Context compaction for coding assistants: transcripts in, compacted history, error memory and
restore state out — offline, deterministic, in well under a second."""

__version__ = "0.1.0"
