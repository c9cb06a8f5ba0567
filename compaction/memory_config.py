"""The compressed-memory configuration in seed 000's JSON shape (`{"mcp": {...}}`), validated.

Only pydantic here, so `compaction.config` can reference `MCPConfig` without import cycles.
Unknown keys are errors (a typo such as `maxFact` must not silently fall back to a default).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

CompressionLevel = Literal["none", "low", "medium", "high"]


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class SummarizationConfig(_Model):
    method: Literal["auto", "extractive", "abstractive", "hierarchical"] = "hierarchical"
    levels: int = Field(3, ge=1, le=3)
    compression_ratios: list[float] = Field(default_factory=lambda: [0.5, 0.4, 0.25])

    @model_validator(mode="after")
    def _ratios(self) -> SummarizationConfig:
        if any(not 0 < r <= 1 for r in self.compression_ratios):
            raise ValueError("compressionRatios must each be within (0, 1]")
        if len(self.compression_ratios) < self.levels:
            raise ValueError(f"compressionRatios needs {self.levels} values (one per level)")
        return self


class KeyValueConfig(_Model):
    enabled: bool = True
    max_facts: int = Field(1000, ge=1)
    k: int = Field(10, ge=1)


class GistConfig(_Model):
    enabled: bool = True
    tokens_per_gist: int = Field(10, ge=1, le=50)  # the seed's num_gist_tokens: key phrases per text
    max_gists: int = Field(100, ge=1)
    k: int = Field(5, ge=1)
    min_words: int = Field(2, ge=1)
    max_words: int = Field(5, ge=1)

    @model_validator(mode="after")
    def _words(self) -> GistConfig:
        if self.min_words > self.max_words:
            raise ValueError("minWords must be <= maxWords")
        return self


class AgeBucket(_Model):
    days: float = Field(gt=0)
    compression_level: CompressionLevel


def _default_buckets() -> list[AgeBucket]:
    return [AgeBucket(days=1, compression_level="none"), AgeBucket(days=7, compression_level="low"),
            AgeBucket(days=30, compression_level="medium"), AgeBucket(days=999999, compression_level="high")]


class TemporalConfig(_Model):
    enabled: bool = True
    age_buckets: list[AgeBucket] = Field(default_factory=_default_buckets)

    @field_validator("age_buckets")
    @classmethod
    def _sorted(cls, v: list[AgeBucket]) -> list[AgeBucket]:
        if not v:
            raise ValueError("ageBuckets must not be empty")
        days = [b.days for b in v]
        if days != sorted(days) or len(set(days)) != len(days):
            raise ValueError("ageBuckets must be in strictly increasing order of days")
        return v


class AdaptiveConfig(_Model):
    """Access-count thresholds: more than `low` accesses -> low compression, more than `medium` -> medium."""

    enabled: bool = True
    low: int = Field(10, ge=0)
    medium: int = Field(3, ge=0)


class Allocation(_Model):
    temporal: float = Field(0.5, ge=0, le=1)
    key_value: float = Field(0.3, ge=0, le=1)
    gist: float = Field(0.2, ge=0, le=1)

    @model_validator(mode="after")
    def _sum(self) -> Allocation:
        total = self.temporal + self.key_value + self.gist
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"allocation shares must sum to 1.0 (got {total:g})")
        return self


class TokenBudgetConfig(_Model):
    max_compressed_tokens: int = Field(2048, ge=1)
    allocation: Allocation = Field(default_factory=Allocation)


class MCPConfig(_Model):
    """`{"mcp": {...}}` in `.compaction/config.json`; every key optional, defaults are the seed's."""

    type: Literal["compressed"] = "compressed"
    summarization: SummarizationConfig = Field(default_factory=SummarizationConfig)
    key_value: KeyValueConfig = Field(default_factory=KeyValueConfig)
    gist_tokens: GistConfig = Field(default_factory=GistConfig)
    temporal_compression: TemporalConfig = Field(default_factory=TemporalConfig)
    adaptive_compression: AdaptiveConfig = Field(default_factory=AdaptiveConfig)
    token_budget: TokenBudgetConfig = Field(default_factory=TokenBudgetConfig)
    workspace: str | None = None  # the MCP server's workspace; default: its working directory
