"""Static text mem writes: the memory files' templates, the agents' protocol block, how to add an
optional extra. Pure."""
