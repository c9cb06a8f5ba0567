"""Entry point."""

from app.config import load_config

# Read once at start-up: a missing variable used to crash here (KeyError in load_config).
config = load_config()
print(f"serving {config.database_url} on port {config.port}")
