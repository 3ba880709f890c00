"""Domain rules on parsed values: memories and their ids, patterns, receipts, the registry, secrets,
commits, hosts' memories, trust and hook settings, edits, budgets. Pure."""
