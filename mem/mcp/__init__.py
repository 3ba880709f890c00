"""`mem mcp`: the tool table (tools.py, SDK-free), argument checks, and the SDK glue (server.py)."""
