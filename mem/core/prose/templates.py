"""Starting texts of the memory files `mem init` creates when they are missing.

The entry formats are the user's (seed 004: decisions carry Context, Decision, Rationale,
Consequences, Status). Each example entry is an indented block, so it is not itself a
`###` section: recall, status and consolidate never count it as a memory.
"""

from __future__ import annotations

DECISIONS = """# Decisions

Non-obvious choices of this project: if you would explain the "why" to a colleague, it is a
decision. One `###` section per decision, dates as YYYY-MM-DD. Format:

    ### YYYY-MM-DD — <short title>
    - **Context**: why the decision was needed
    - **Decision**: what was chosen
    - **Rationale**: why
    - **Consequences**: what this unlocks / forecloses
    - **Status**: active / superseded / rolled-back
"""

LESSONS = """# Lessons

Written as soon as something unexpected happens or an assumption proves wrong. One `###`
section per lesson. Format:

    ### YYYY-MM-DD — <what happened>
    - **Context**: what we were doing
    - **Impact**: what it cost or broke
    - **Rule**: what to do next time
"""

PATTERNS = """# Patterns

Solutions that worked and could be reused. One `###` section per pattern. Format:

    ### <pattern name>
    - **Problem**: what it solves
    - **Shape**: the solution, in a few lines
    - **Trade-off**: what it costs
    - **Status**: candidate / validated
"""

CONTEXT = """# Context

The living state of the project, readable in 30 seconds. Update it when the project changes
meaningfully (new module, stack change, shift in architecture).

## What it is

## Stack

## Current focus

## Known issues
"""

PROJECT_FILES = {
    "decisions.md": DECISIONS,
    "lessons.md": LESSONS,
    "patterns.md": PATTERNS,
    "context.md": CONTEXT,
}

IDENTITY = """# Who you are and how you work, for every agent that reads this brain.
# Edit freely: mem never rewrites this file.
name: ""
role: ""
languages: []
preferences: []
"""

BRAIN_DECISIONS = DECISIONS.replace("# Decisions", "# Cross-project decisions", 1)
BRAIN_LESSONS = LESSONS.replace("# Lessons", "# Cross-project lessons", 1)
BRAIN_PATTERNS = PATTERNS.replace("# Patterns", "# Cross-project patterns", 1)

BRAIN_FILES = {
    "identity.yaml": IDENTITY,
    "decisions.md": BRAIN_DECISIONS,
    "lessons.md": BRAIN_LESSONS,
    "patterns.md": BRAIN_PATTERNS,
}
