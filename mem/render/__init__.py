"""The bytes mem prints, a module of views for each family of commands. Pure.

One convention across mem/render: a view is `view(values..., *, as_json) -> str` and
returns the exact bytes to print, text or JSON; the CLI only echoes them.
"""
