"""A tiny shop: the route layer must not talk to the database driver directly."""
