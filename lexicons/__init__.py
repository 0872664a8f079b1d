"""lexicons package."""
