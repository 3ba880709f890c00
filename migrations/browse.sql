-- What `mem browse` adds to its read-only snapshot of an index, never to the index itself:
-- the answers of `mem context --with-evidence` and `mem outcomes` when browse started, for
-- the project (or every project of the portfolio that was found). The index cannot hold
-- them exactly: they depend on the checkout's current bytes, its repository identity and
-- Nexus run state, which only those commands read. (The index's own views evidence_state,
-- receipt_state and retired say what the index alone can tell.)

-- One row per memory (a '###' section of the six memory files), in file order, as
-- `mem context --with-evidence` describes it when browse started.
CREATE TABLE memories (
    project TEXT NOT NULL,          -- the project's real path (projects.path)
    project_name TEXT NOT NULL,     -- the project's name (projects.name)
    id TEXT NOT NULL,               -- 'mem_' + 20 hex of SHA-256 of file NUL heading
    file TEXT NOT NULL,             -- the Markdown file, relative to the project
    section INTEGER NOT NULL,       -- section number within the file
    heading TEXT NOT NULL,          -- the '###' heading
    revision TEXT NOT NULL,         -- SHA-256 of the section's trimmed text
    status TEXT,                    -- 'active', 'superseded' or 'retracted'; NULL: see review_problems
    superseded_by TEXT,             -- the successor's memory id (superseded only)
    retired_at TEXT,                -- ts of the lifecycle event that retired this revision
    reason TEXT,                    -- why it was superseded or retracted
    -- `mem audit`'s status: 'missing', 'changed', 'inconclusive', 'unknown' (evidence of
    -- older revisions only) or 'unchanged'; NULL when it has no evidence or the
    -- evidence store cannot be read (see review_problems)
    audit TEXT,
    PRIMARY KEY (project, file, section)
);

-- One row per evidence source of a memory's current revision, compared with the checkout
-- as `mem audit` compares it.
CREATE TABLE memory_sources (
    project TEXT NOT NULL,          -- memories.project
    memory_id TEXT NOT NULL,        -- memories.id
    revision TEXT NOT NULL,         -- memories.revision
    path TEXT NOT NULL,             -- source path relative to the repository root
    status TEXT NOT NULL,           -- 'missing', 'changed', 'inconclusive' or 'unchanged'
    reason TEXT,                    -- why, when not unchanged
    recorded_sha256 TEXT NOT NULL,  -- of the source's bytes when the evidence was recorded
    current_sha256 TEXT             -- of the source's bytes in the checkout; NULL if unreadable
);

-- One row per outcome receipt, with the eligibility `mem outcomes` gives it when browse
-- started.
CREATE TABLE receipt_eligibility (
    project TEXT NOT NULL,          -- the project's real path (projects.path)
    receipt_id TEXT NOT NULL,       -- receipts.id
    eligible INTEGER NOT NULL,      -- 1 when it is accepted-current
    eligibility TEXT NOT NULL       -- 'accepted-current', or the first reason it is not
);

-- One row per part of the review above that could not be computed, for example because a
-- store is damaged; that part's columns are left NULL and its table empty.
CREATE TABLE review_problems (
    project TEXT NOT NULL,          -- the project's real path (projects.path)
    part TEXT NOT NULL,             -- 'lifecycle', 'evidence' or 'outcomes'
    problem TEXT NOT NULL           -- the message the command of that part prints
);

-- Full-text search over the text of every note and event (rowid = records.id), for the
-- search form and the search boxes of the notes and events pages. Words are matched
-- case-insensitively and without diacritics, unlike recall's exact tokens.
CREATE VIRTUAL TABLE search USING fts5 (
    text,                           -- note: heading and body; event: its scored text
    content = 'records',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
