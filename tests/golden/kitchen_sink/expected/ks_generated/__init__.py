"""The ks_generated package."""
