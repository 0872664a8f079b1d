"""moderation package."""
