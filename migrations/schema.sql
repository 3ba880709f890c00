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
    ctime_ns INTEGER NOT NULL,      -- an edit that restores the mtime (touch -r) still moves it
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
    digest INTEGER NOT NULL,        -- xxh3_64 of the section's scored text or the event's line:
                                    -- a re-sync keeps the records whose digest is unchanged
    UNIQUE (file_id, ordinal)
);

-- Every token of every record, once.
CREATE TABLE terms (
    id INTEGER PRIMARY KEY,
    term TEXT NOT NULL UNIQUE
);

-- The postings: which records hold a term, grouped so that recall can bound the score of
-- every record it has not read. A group is the records of one band that hold the term tf
-- times. The band is the records' length class (their exact token count below 16, then
-- classes an eighth of a power of two wide) and, for events with a zoned ts, the 4-day
-- bucket of that ts: band = length class + 4096 * (bucket + 25000001).
CREATE TABLE postings (
    term INTEGER NOT NULL,          -- terms.id
    band INTEGER NOT NULL,
    tf INTEGER NOT NULL,            -- how often each record of the group holds the term
    records BLOB NOT NULL,          -- records.id of the group, 8-byte integers in machine order
    PRIMARY KEY (term, band, tf)
) WITHOUT ROWID;

CREATE VIEW notes AS
SELECT r.id, f.path AS file, r.ordinal AS section, r.ref AS heading, r.text, r.tokens
FROM records AS r JOIN files AS f ON f.id = r.file_id
WHERE r.kind = 'note';

CREATE VIEW events AS
SELECT r.id, r.ref AS event_id, r.agent, r.ts, r.ts_ms, r.text, r.line, r.ordinal AS byte_offset
FROM records AS r
WHERE r.kind = 'event';

-- One row per pattern of .bmad/memory/pattern-scores.json, as stored: a field that is
-- missing or of the wrong type is NULL (`mem reinforce` would refuse such an entry).
CREATE TABLE pattern_scores (
    file_id INTEGER NOT NULL REFERENCES files (id),
    position INTEGER NOT NULL,      -- order of the pattern in the file
    pattern_id TEXT NOT NULL,
    elo REAL,
    alpha REAL,
    beta REAL,
    mean REAL,                      -- alpha / (alpha + beta) after the last update
    updates INTEGER,
    last_ts TEXT,
    entry TEXT NOT NULL,            -- the stored entry, compact JSON
    UNIQUE (file_id, pattern_id)
);

-- One row per parseable line of .bmad/memory/promotions.ndjson (torn lines are skipped).
CREATE TABLE promotions (
    file_id INTEGER NOT NULL REFERENCES files (id),
    byte_offset INTEGER NOT NULL,   -- of the line: append order
    id TEXT,
    pattern_id TEXT,
    from_status TEXT,
    to_status TEXT,
    status TEXT,                    -- PROPOSED, APPROVED, REJECTED or APPLIED
    governed_by TEXT,
    approved_by TEXT,
    approved_at TEXT,
    reason TEXT,
    evidence TEXT,                  -- JSON array of evidence ids
    ts TEXT,
    line TEXT NOT NULL,
    UNIQUE (file_id, byte_offset)
);

-- One row per line of .bmad/memory/evidence.ndjson (lines that do not parse are left out;
-- `mem audit` reads the file itself, strictly).
CREATE TABLE evidence (
    file_id INTEGER NOT NULL REFERENCES files (id),
    line INTEGER NOT NULL,          -- 1-based line number in the store
    record_id TEXT,                 -- SHA-256 of the record without its id
    ts TEXT,
    memory_id TEXT,                 -- 'mem_' + 20 hex
    memory_file TEXT,
    memory_heading TEXT,
    revision TEXT,                  -- SHA-256 of the memory's trimmed text when recorded
    repo TEXT,                      -- canonical repository identity, e.g. github.com/Org/Repo
    path TEXT,                      -- source path relative to the repository root
    sha256 TEXT,                    -- of the source's raw bytes when recorded
    size INTEGER,
    batch TEXT,                     -- shared by the records of one `mem evidence add`
    PRIMARY KEY (file_id, line)
);

-- One row per line of .bmad/memory/lifecycle.ndjson (supersede and retract events).
CREATE TABLE lifecycle (
    file_id INTEGER NOT NULL REFERENCES files (id),
    line INTEGER NOT NULL,
    event_id TEXT,
    kind TEXT,                      -- 'superseded' or 'retracted'
    ts TEXT,
    memory_id TEXT,
    memory_file TEXT,
    memory_heading TEXT,
    revision TEXT,                  -- the revision the event binds
    with_id TEXT,                   -- the successor (superseded only)
    with_revision TEXT,
    reason TEXT,
    PRIMARY KEY (file_id, line)
);

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
