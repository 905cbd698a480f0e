"""Hand-written business logic of the example catalogues: the _impl functions."""
