-- The whole schema of mem's index cache. The index is disposable: it is rebuilt from the
-- canonical Markdown and NDJSON files whenever this text (or the parser) changes, because
-- the hash of this file is part of meta.index_version. Edit it in place; never ALTER.

CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per canonical source file of the indexed root (a project or a brain).
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,      -- relative to the root, '/' separators
    kind TEXT NOT NULL,             -- 'journal', 'notes', or another store's loader name
    rank INTEGER NOT NULL,          -- position of the source in recall's candidate order
    real_path TEXT NOT NULL,        -- the file behind any symlink: one file is indexed once
    hash TEXT NOT NULL,             -- 'xxh3:' + xxh3_128 hex of the raw bytes
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    checked_ns INTEGER NOT NULL,    -- when the bytes were last hashed (racily-clean guard)
    utf8 INTEGER NOT NULL           -- 1 when the bytes are valid UTF-8
);

-- One row per note (a '###' section) or journal event.
CREATE TABLE records (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files (id),
    ordinal INTEGER NOT NULL,       -- section number, or byte offset of the journal line
    kind TEXT NOT NULL CHECK (kind IN ('note', 'event')),
    ref TEXT NOT NULL,              -- note: heading; event: its id, else String(ts)
    text TEXT NOT NULL,             -- note: trimmed heading and body; event: its scored text
    tokens INTEGER NOT NULL,        -- document length n of the lexical score
    agent TEXT,                     -- events only, from here on
    ts TEXT,                        -- ts as written in the journal
    ts_ms REAL,                     -- ts in epoch milliseconds; NULL when it does not parse
    ts_local INTEGER,               -- 1 when ts names no zone (JavaScript reads local time)
    line TEXT,                      -- the journal line, trimmed
    UNIQUE (file_id, ordinal)
);

-- The tokenised text of each record (rowid = records.id). Tokens are produced by mem's own
-- tokenizer and joined with spaces, so FTS5 sees exactly the contract's tokens.
CREATE VIRTUAL TABLE records_fts USING fts5 (
    terms,
    tokenize = "unicode61 remove_diacritics 0 tokenchars '-_'"
);

-- Term frequencies per record, for the contract's 1 + ln tf.
CREATE VIRTUAL TABLE records_terms USING fts5vocab (records_fts, instance);

CREATE VIEW notes AS
SELECT r.id, f.path AS file, r.ordinal AS section, r.ref AS heading, r.text, r.tokens
FROM records AS r JOIN files AS f ON f.id = r.file_id
WHERE r.kind = 'note';

CREATE VIEW events AS
SELECT r.id, r.ref AS event_id, r.agent, r.ts, r.ts_ms, r.text, r.line, r.ordinal AS byte_offset
FROM records AS r
WHERE r.kind = 'event';

-- One row per line of .bmad/memory/outcomes.ndjson that is a JSON object, for audits only.
-- Whether a receipt is eligible needs the Nexus run state and the memory file: only
-- `mem outcomes` decides it, from the files, every time. `relationship` is what the store
-- alone says (section 14 steps 1-2).
CREATE TABLE receipts (
    file_id INTEGER NOT NULL REFERENCES files (id),
    line INTEGER NOT NULL,          -- 1-based line number in the store
    id TEXT,
    intact INTEGER NOT NULL,        -- 1 when id is the SHA-256 of the rest of the record
    ts TEXT,
    memory_file TEXT,
    memory_heading TEXT,
    text_sha256 TEXT,
    scope TEXT,                     -- JSON array of project paths
    run_id TEXT,
    task_id TEXT,
    attempt_id TEXT,
    verification_id TEXT,
    accepted_at TEXT,
    interpretation TEXT,
    supersedes TEXT,                -- JSON array of earlier receipt ids
    contradicts TEXT,               -- JSON array of earlier receipt ids
    relationship TEXT,              -- 'superseded', 'contradictory' or NULL
    record TEXT NOT NULL,           -- the line as stored
    UNIQUE (file_id, line)
);
