"""JavaScript semantics the reference implementation leaks into mem's formats: numbers, JSON, dates,
V8's Math. Pure."""
