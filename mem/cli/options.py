"""The legacy option table of `bmad-plus mem`, shared by the click CLI and the fast path."""

from __future__ import annotations

# commander's option table of `bmad-plus mem`: every legacy action accepts all of them.
LEGACY_OPTIONS: list[tuple[tuple[str, ...], str, str]] = [
    (("-d", "--directory"), "<path>", "Project directory (default: the current directory)."),
    (("--scope",), "<scope>", "recall: project or portfolio."),
    (("--portfolio",), "<path>", "recall: the portfolio brain (default: the linked brain)."),
    (("--limit",), "<n>", "recall: results to show, 1 to 1000 (default 8)."),
    (("--ranking",), "<mode>", "recall: lexical or evidence."),
    (("--context-scope",), "<paths>", "recall --ranking evidence: comma-separated project paths."),
    (("--input",), "<file>", "observe: project-relative JSON observation."),
    (("--agent",), "<name>", "write: the agent that acted."),
    (("--cli",), "<name>", "write: the coding CLI."),
    (("--model",), "<id>", "write: the model."),
    (("--task",), "<text>", "write: what was done."),
    (("--outcome",), "<outcome>", "write: success, failure, partial or abandoned."),
    (("--pattern",), "<id>", "reinforce: the pattern heading in patterns.md."),
    (("--eval",), "<score>", "write/reinforce signal: evaluation score 0..1."),
    (("--accept",), "<bool>", "write/reinforce signal: accepted (true/false/yes/no or 0..1)."),
    (("--ci",), "<result>", "write/reinforce signal: pass, fail or 0..1."),
    (("--evidence",), "<ids>", "reinforce: comma-separated evidence ids."),
]
DESTINATION = {
    name: names[-1].lstrip("-").replace("-", "_")
    for names, _, _ in LEGACY_OPTIONS
    for name in names
}
