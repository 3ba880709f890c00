"""One module per `mem` command, each a leaf: shared code lives in `mem.domain`.

The CLI (`mem.cli.app`) and the MCP tools (`mem.mcp.tools`) both call a command's entry
function and render its result; neither composes a command's steps itself.
"""
