"""Configuration loaded from the environment."""

import os
from dataclasses import dataclass


@dataclass
class Config:
    database_url: str
    port: int


def load_config() -> Config:
    url = os.environ.get("DATABASE_URL", "sqlite:///app.db")
    port = int(os.environ.get("PORT", "8000"))
    return Config(database_url=url, port=port)
