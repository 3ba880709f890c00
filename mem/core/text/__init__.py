"""Text into values: Markdown sections and tokens, NDJSON lines, schema comments, values kept on
their Markdown line. Pure."""
