"""A team's shared stores: which database they live in, and which project and organisation a checkout is."""
