"""The app package."""
