"""Entry point."""

from app.config import load_config


config = load_config()
print(f"serving {config.database_url} on port {config.port}")
