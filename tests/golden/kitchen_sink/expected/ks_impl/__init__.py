"""The ks_impl package."""
