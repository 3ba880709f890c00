"""Ranking maths: scores, decay and total order, their explanation, likeness of notes, findability
measures. Pure."""
