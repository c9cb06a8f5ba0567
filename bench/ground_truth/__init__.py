"""Ground truth for the real sessions of `../shared/transcripts/more-agents/`.

Derived from the sessions themselves, mechanically where the format records its edits and by
reading otherwise; nothing here imports or runs the compactor (`compaction`), so the figures the
harness scores against are independent of the engine they judge.
"""
