-- The whole schema of mem's index cache. The index is disposable: it is rebuilt from the
-- canonical Markdown and NDJSON files whenever this text (or the parser) changes, because
-- the hash of this file is part of meta.index_version. Edit it in place; never ALTER.

-- Settings of the index itself, one row per key.
CREATE TABLE meta (
    key TEXT PRIMARY KEY,           -- 'index_version' (must equal mem's, else rebuild) or 'root'
    value TEXT NOT NULL             -- the version hash, or the indexed root's real path
);

-- One row per indexed root. A project's own index holds one (its project or brain); the
-- portfolio index holds the brain and every project registered in it, so every other table
-- carries its project through `files.project_id`.
CREATE TABLE projects (
    id INTEGER PRIMARY KEY,         -- surrogate key, referenced as project_id
    path TEXT NOT NULL,             -- the root's real path
    name TEXT NOT NULL,             -- the registry entry's name, else the folder's name
    role TEXT NOT NULL CHECK (role IN ('project', 'brain')),  -- 'project' or 'brain'
    found INTEGER NOT NULL,         -- 0 when a registered project's folder is gone (no files)
    signature BLOB,                 -- stat data of the watched paths at the last sync (cache)
    watch TEXT,                     -- the watched paths: its sources and their folders
    UNIQUE (path, role)
);
-- Listing the roots (recall --scope all) reads this index alone, not the freshness blobs.
CREATE INDEX projects_listing ON projects (path, role, name, found);

-- One row per canonical source file of an indexed root.
CREATE TABLE files (
    id INTEGER PRIMARY KEY,         -- surrogate key, referenced as file_id
    project_id INTEGER NOT NULL REFERENCES projects (id),  -- the root the file belongs to
    path TEXT NOT NULL,             -- relative to the root, '/' separators
    kind TEXT NOT NULL,             -- 'journal', 'notes', another store's loader name, or
                                    -- 'archive' (an archived store other than the journal)
    rank INTEGER NOT NULL,          -- position of the source in recall's candidate order
    real_path TEXT NOT NULL,        -- the file behind any symlink: one file is indexed once
    hash TEXT NOT NULL,             -- 'xxh3:' + xxh3_128 hex of the raw bytes
    size INTEGER NOT NULL,          -- bytes, when last indexed
    mtime_ns INTEGER NOT NULL,      -- modification time in nanoseconds, when last indexed
    ctime_ns INTEGER NOT NULL,      -- status change time: an edit that restores the mtime moves it
    inode INTEGER NOT NULL,         -- inode number, when last indexed
    checked_ns INTEGER NOT NULL,    -- when the bytes were last hashed (racily-clean guard)
    utf8 INTEGER NOT NULL,          -- 1 when the bytes are valid UTF-8
    UNIQUE (project_id, path)
);
-- The recall sources of every root of a portfolio, read from this index alone.
CREATE INDEX files_recall ON files (kind, rank, project_id);

-- One row per note (a '###' section) or journal event.
CREATE TABLE records (
    id INTEGER PRIMARY KEY,         -- surrogate key; postings list records by it
    file_id INTEGER NOT NULL REFERENCES files (id),  -- the source file
    ordinal INTEGER NOT NULL,       -- section number, or byte offset of the journal line
    kind TEXT NOT NULL CHECK (kind IN ('note', 'event')),  -- 'note' or 'event'
    ref TEXT NOT NULL,              -- note: heading; event: its id, else String(ts)
    text TEXT NOT NULL,             -- note: trimmed heading and body; event: its scored text
    tokens INTEGER NOT NULL,        -- document length n of the lexical score
    bm25_length INTEGER NOT NULL,   -- the bm25 ranking's length: Σ of its weighted frequencies (0
                                    -- in an index that keeps no bm25 postings)
    agent TEXT,                     -- event: who wrote it (this and below: NULL for notes)
    ts TEXT,                        -- event: ts as written in the journal
    ts_ms REAL,                     -- event: ts in epoch milliseconds; NULL when it does not parse
    ts_local INTEGER,               -- event: 1 when ts names no zone (JavaScript reads local time)
    line TEXT,                      -- event: the journal line, trimmed
    memory_id TEXT,                 -- note of a project's six memory files: 'mem_' + 20 hex
    revision TEXT,                  -- note: the SHA-256 of the trimmed text (see `mem audit`)
    digest INTEGER NOT NULL,        -- xxh3_64 of the section's scored text or the event's line:
                                    -- a re-sync keeps the records whose digest is unchanged
    UNIQUE (file_id, ordinal)
);
-- Journal lines by digest: a sync drops a line of the live journal that one of its archives
-- holds (deviation D14), looking each new line up here.
CREATE INDEX records_lines ON records (digest) WHERE line IS NOT NULL;
-- Notes newest first, as mem.index.queries.notes_by_recency orders them (the date a heading
-- starts with, undated last, then the later section), with what that query filters on: the
-- brief reads the newest few of a project's notes here instead of sorting all of them
-- (200,000 notes: under 1 ms, not 110 ms). Led by the order, not by kind, so that no query
-- that looks records up by kind is drawn to it.
CREATE INDEX records_recency ON records (
    CASE WHEN ref GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' THEN substr(ref, 1, 10) ELSE '' END DESC,
    ordinal DESC,
    kind,
    file_id
);

-- Every token of every record, once.
CREATE TABLE terms (
    id INTEGER PRIMARY KEY,         -- surrogate key, referenced by postings.term
    term TEXT NOT NULL UNIQUE       -- a token as mem's tokenizer makes it
);

-- The postings: which records hold a term, grouped so that recall can bound the score of
-- every record it has not read. A group is the records of one band that hold the term tf
-- times. The band is the records' length class (their exact token count below 16, then
-- classes an eighth of a power of two wide) and, for events with a zoned ts, the 4-day
-- bucket of that ts: band = length class + 4096 * (bucket + 25000001).
CREATE TABLE postings (
    term INTEGER NOT NULL,          -- terms.id
    band INTEGER NOT NULL,          -- length class and time bucket of the group (see above)
    tf INTEGER NOT NULL,            -- how often each record of the group holds the term
    part INTEGER NOT NULL,          -- a group is written in parts (one per batch of the build),
                                    -- so no batch rewrites what an earlier one wrote
    records BLOB NOT NULL,          -- records.id of the part, 8-byte integers in machine order
    PRIMARY KEY (term, band, tf, part)
) WITHOUT ROWID;

-- The bm25 ranking's terms (mem/core/tokens.py: words of every script, identifiers whole
-- and in parts, accents folded, stemmed), once each.
CREATE TABLE bm25_terms (
    id INTEGER PRIMARY KEY,         -- surrogate key, referenced by bm25_postings.term
    term TEXT NOT NULL UNIQUE       -- a term as the bm25 tokenizer makes it
);

-- The bm25 ranking's postings: a group is the records of one length class holding the term
-- tf times, where tf counts a note's heading words 3 times (BM25F). Each record is there with
-- its bm25_length, so a term's groups give its df and each record's BM25 term weight without
-- reading the records, and the class bounds the weight of a group unread (mem/index/bm25.py).
CREATE TABLE bm25_postings (
    term INTEGER NOT NULL,          -- bm25_terms.id
    band INTEGER NOT NULL,          -- the length class: bm25_length's bit length (the lengths
                                    -- from 2^(band-1) to 2^band - 1); it bounds their weight
    tf INTEGER NOT NULL,            -- the weighted frequency of the term in each record
    part INTEGER NOT NULL,          -- 0: added by later syncs; from 1: a fresh build's batches,
                                    -- and its workers' from n * 2^20 on
    records BLOB NOT NULL,          -- (records.id, bm25_length) of each record of the part, in
                                    -- increasing id order: pairs of 4-byte unsigned integers
                                    -- in machine order
    PRIMARY KEY (term, band, tf, part)
) WITHOUT ROWID;

-- What the bm25 ranking needs of the whole index, kept by every write of records in the same
-- transaction: a recall reads it instead of counting the records. No row: the index keeps no
-- bm25 postings (none was asked for since it was built; a bm25 read builds it again, with them).
CREATE TABLE bm25_stats (
    id INTEGER PRIMARY KEY CHECK (id = 0),  -- the one row
    records INTEGER NOT NULL,       -- N: the records of the index
    length INTEGER NOT NULL         -- Σ of their bm25_length
);

-- The git history a read with history asked for (docs/history.md), in a project's own
-- index: one row once such a read found the project in a git work tree. A read compares it
-- with HEAD as the repository's files say it, and runs git only when HEAD moved.
CREATE TABLE history (
    id INTEGER PRIMARY KEY CHECK (id = 0),  -- the one row
    head TEXT NOT NULL,             -- the sha of the HEAD read; '' for a repository without commits
    commits INTEGER NOT NULL,       -- N: the commits held
    length INTEGER NOT NULL         -- Σ of their bm25_length
);

-- A whole history being written, a batch (a postings part) per transaction, so that a notes
-- sync can take the write lock between batches and a killed writer resumes at its last batch.
-- Present only until the last batch, which replaces it with the history row: meanwhile the
-- index has no history row, so every read sees the history as not indexed yet.
CREATE TABLE history_progress (
    id INTEGER PRIMARY KEY CHECK (id = 0),  -- the one row
    head TEXT NOT NULL,             -- the sha whose history is being written
    listed INTEGER NOT NULL,        -- how many of `git log <head>`'s commits are written (left-out ones too)
    last TEXT NOT NULL,             -- the sha of the last of them ('' before the first batch)
    part INTEGER NOT NULL,          -- the postings part the next batch writes
    commits INTEGER NOT NULL,       -- N of the commits written
    length INTEGER NOT NULL         -- Σ of their bm25_length
);

-- One row per commit reachable from that HEAD, but merges with no body (docs/history.md).
-- Kept out of every ranking but a bm25 recall that asks for history.
CREATE TABLE commits (
    id INTEGER PRIMARY KEY,         -- surrogate key; commit_postings list commits by it
    sha TEXT NOT NULL UNIQUE,       -- the full sha
    time INTEGER NOT NULL,          -- committer time, seconds since the epoch
    subject TEXT NOT NULL,          -- the first paragraph, on one line
    text TEXT NOT NULL,             -- the whole message: subject, body, trailers
    bm25_length INTEGER NOT NULL    -- Σ of the weighted frequencies (the subject's words 3 times)
);

-- The paths each commit touched (none for a merge), to find the commits of a file.
CREATE TABLE commit_paths (
    path TEXT NOT NULL,             -- relative to the repository's top level, '/' separators
    commit_id INTEGER NOT NULL REFERENCES commits (id),  -- a commit that touched it
    PRIMARY KEY (path, commit_id)
) WITHOUT ROWID;
CREATE INDEX commit_paths_by_commit ON commit_paths (commit_id);

-- The commits' bm25 terms, numbered as bm25_terms numbers the notes' (a table of their own:
-- the notes' statistics never see a commit).
CREATE TABLE commit_terms (
    id INTEGER PRIMARY KEY,         -- surrogate key, referenced by commit_postings.term
    term TEXT NOT NULL UNIQUE       -- a term as the bm25 tokenizer makes it
);

-- The commits' bm25 postings, in bm25_postings' layout (mem/index/bm25.py prunes both
-- alike): a group is the commits of one length class holding the term tf times.
CREATE TABLE commit_postings (
    term INTEGER NOT NULL,          -- commit_terms.id
    band INTEGER NOT NULL,          -- the length class: bm25_length's bit length
    tf INTEGER NOT NULL,            -- the weighted frequency (a subject's words count 3 times)
    part INTEGER NOT NULL,          -- from 1: a whole history's batches; 0: added by later syncs
    records BLOB NOT NULL,          -- (commits.id, bm25_length) of each commit of the part, in
                                    -- increasing id order: pairs of 4-byte unsigned integers
                                    -- in machine order
    PRIMARY KEY (term, band, tf, part)
) WITHOUT ROWID;

-- One row per note: a '###' section of a memory file.
CREATE VIEW notes AS
SELECT
    r.id,                           -- records.id
    f.path AS file,                 -- the Markdown file, relative to the root
    r.ordinal AS section,           -- section number within the file
    r.ref AS heading,               -- the '###' heading, trimmed
    r.text,                         -- heading and body, trimmed
    r.tokens,                       -- document length n of the lexical score
    r.memory_id,                    -- the memory id of the section (memory files only)
    r.revision,                     -- the SHA-256 of its trimmed text
    f.project_id,                   -- projects.id
    p.path AS project,              -- the project's real path
    p.name AS project_name          -- the project's name
FROM records AS r JOIN files AS f ON f.id = r.file_id JOIN projects AS p ON p.id = f.project_id
WHERE r.kind = 'note';

-- One row per journal event, of the live journal and of archived ones.
CREATE VIEW events AS
SELECT
    r.id,                           -- records.id
    r.ref AS event_id,              -- the event's id, else String(ts)
    r.agent,                        -- who wrote it
    r.ts,                           -- as written in the journal
    r.ts_ms,                        -- epoch milliseconds; NULL when ts does not parse
    r.text,                         -- the text recall scores: task, outcome, agent...
    r.line,                         -- the journal line, trimmed
    r.ordinal AS byte_offset,       -- of the line in its journal: append order
    f.path AS file,                 -- the journal, relative to the root
    f.project_id,                   -- projects.id
    p.path AS project,              -- the project's real path
    p.name AS project_name          -- the project's name
FROM records AS r JOIN files AS f ON f.id = r.file_id JOIN projects AS p ON p.id = f.project_id
WHERE r.kind = 'event';

-- One row per pattern of .bmad/memory/pattern-scores.json, as stored: a field that is
-- missing or of the wrong type is NULL (`mem reinforce` would refuse such an entry).
CREATE TABLE pattern_scores (
    file_id INTEGER NOT NULL REFERENCES files (id),  -- the scores file
    position INTEGER NOT NULL,      -- order of the pattern in the file
    pattern_id TEXT NOT NULL,       -- the pattern's name, as `mem reinforce --pattern` gave it
    elo REAL,                       -- Elo rating against a fixed 1200 baseline
    alpha REAL,                     -- Beta distribution: successes + 1, decayed
    beta REAL,                      -- Beta distribution: failures + 1, decayed
    mean REAL,                      -- alpha / (alpha + beta) after the last update
    updates INTEGER,                -- how many rewards were folded in
    last_ts TEXT,                   -- when the last reward was folded in
    entry TEXT NOT NULL,            -- the stored entry, compact JSON
    UNIQUE (file_id, pattern_id)
);

-- One row per parseable line of .bmad/memory/promotions.ndjson (torn lines are skipped).
CREATE TABLE promotions (
    file_id INTEGER NOT NULL REFERENCES files (id),  -- the promotions store
    byte_offset INTEGER NOT NULL,   -- of the line: append order
    id TEXT,                        -- the promotion's id
    pattern_id TEXT,                -- the pattern (or memory) it promotes
    from_status TEXT,               -- e.g. 'candidate'
    to_status TEXT,                 -- e.g. 'validated'
    status TEXT,                    -- PROPOSED, APPROVED, REJECTED or APPLIED
    governed_by TEXT,               -- who may apply it
    approved_by TEXT,               -- NULL until a person approves
    approved_at TEXT,               -- when a person approved it
    reason TEXT,                    -- why it was proposed
    evidence TEXT,                  -- JSON array of evidence ids
    ts TEXT,                        -- when the line was written
    line TEXT NOT NULL,             -- the line as stored
    UNIQUE (file_id, byte_offset)
);

-- One row per line of .bmad/memory/evidence.ndjson (lines that do not parse are left out;
-- `mem audit` reads the file itself, strictly).
CREATE TABLE evidence (
    file_id INTEGER NOT NULL REFERENCES files (id),  -- the evidence store
    line INTEGER NOT NULL,          -- 1-based line number in the store
    record_id TEXT,                 -- SHA-256 of the record without its id
    ts TEXT,                        -- when it was recorded
    memory_id TEXT,                 -- 'mem_' + 20 hex
    memory_file TEXT,               -- the memory's Markdown file
    memory_heading TEXT,            -- the memory's '###' heading
    revision TEXT,                  -- SHA-256 of the memory's trimmed text when recorded
    repo TEXT,                      -- canonical repository identity, e.g. github.com/Org/Repo
    path TEXT,                      -- source path relative to the repository root
    sha256 TEXT,                    -- of the source's raw bytes when recorded
    size INTEGER,                   -- of the source in bytes when recorded
    batch TEXT,                     -- shared by the records of one `mem evidence add`
    PRIMARY KEY (file_id, line)
);

-- One row per line of .bmad/memory/lifecycle.ndjson (supersede and retract events).
CREATE TABLE lifecycle (
    file_id INTEGER NOT NULL REFERENCES files (id),  -- the lifecycle store
    line INTEGER NOT NULL,          -- 1-based line number in the store
    event_id TEXT,                  -- SHA-256 of the event without its id
    kind TEXT,                      -- 'superseded' or 'retracted'
    ts TEXT,                        -- when it was recorded
    memory_id TEXT,                 -- the retired memory
    memory_file TEXT,               -- its Markdown file
    memory_heading TEXT,            -- its '###' heading
    revision TEXT,                  -- the revision the event binds
    with_id TEXT,                   -- the successor (superseded only)
    with_revision TEXT,             -- the successor's revision the event binds
    reason TEXT,                    -- why, in the words of whoever retired it
    intact INTEGER NOT NULL,        -- 1 when well formed and the id matches: what recall applies
    PRIMARY KEY (file_id, line)
);

-- One row per line of .bmad/memory/outcomes.ndjson that is a JSON object, for audits only.
-- Whether a receipt is eligible needs the Nexus run state and the memory file: only
-- `mem outcomes` decides it, from the files, every time. `relationship` is what the store
-- alone says (section 14 steps 1-2).
CREATE TABLE receipts (
    file_id INTEGER NOT NULL REFERENCES files (id),  -- the outcomes store
    line INTEGER NOT NULL,          -- 1-based line number in the store
    id TEXT,                        -- the receipt's id as stored
    intact INTEGER NOT NULL,        -- 1 when id is the SHA-256 of the rest of the record
    ts TEXT,                        -- when it was observed
    memory_file TEXT,               -- the anchored memory section's Markdown file
    memory_heading TEXT,            -- the anchored memory section's '###' heading
    text_sha256 TEXT,               -- the section's text when observed
    scope TEXT,                     -- JSON array of project paths
    run_id TEXT,                    -- the Nexus run
    task_id TEXT,                   -- the Nexus task
    attempt_id TEXT,                -- the task attempt
    verification_id TEXT,           -- the verification that passed
    accepted_at TEXT,               -- when Nexus accepted the task
    interpretation TEXT,            -- the operator's reading of the association
    supersedes TEXT,                -- JSON array of earlier receipt ids
    contradicts TEXT,               -- JSON array of earlier receipt ids
    relationship TEXT,              -- 'superseded', 'contradictory' or NULL
    record TEXT NOT NULL,           -- the line as stored
    UNIQUE (file_id, line)
);

-- One row per registry entry of the portfolio's brain (`projects/<hash>.yaml`), as written:
-- the portfolio index only. `mem portfolio add|remove`, `mem scan --register` and `mem init`
-- write the entries.
CREATE TABLE registry (
    file_id INTEGER NOT NULL REFERENCES files (id),  -- the entry's file in the brain
    path TEXT,                      -- the project folder the entry names
    name TEXT,                      -- the project's name
    stack TEXT,                     -- the stack `mem scan` detected
    status TEXT,                    -- active, paused or archived, as last scanned
    last_scanned TEXT,              -- when `mem scan` last wrote the entry
    entry TEXT NOT NULL,            -- the entry's `key: value` lines as JSON
    UNIQUE (file_id)
);

-- Where a notes file's bytes stood when its records were made, so that a re-sync
-- finds the unchanged start and end of an edited file without reading their records:
-- xxh3_64 of each `block` bytes counted from the start, and of each counted from the end.
CREATE TABLE file_blocks (
    file_id INTEGER PRIMARY KEY REFERENCES files (id),  -- the notes file
    block INTEGER NOT NULL,         -- bytes per block (the first block from the end and the
                                    -- last from the start may be shorter)
    front BLOB NOT NULL,            -- the blocks' digests from the start, 8-byte integers
    back BLOB NOT NULL              -- from the end, the last block first
);

-- The portfolio index only: every source path a project's evidence names, as the project's
-- checkout holds it now, read as `mem audit` reads it (no symbolic links, at most 1 MiB).
-- Only bytes are compared here; `mem audit` also proves the repository's identity.
CREATE TABLE checkout_files (
    project_id INTEGER NOT NULL REFERENCES projects (id),  -- the project whose checkout it is
    path TEXT NOT NULL,             -- relative to the project root, as the evidence names it
    state TEXT NOT NULL,            -- 'file', 'missing' or 'refused'
    sha256 TEXT,                    -- of the raw bytes, when state is 'file'
    size INTEGER,                   -- bytes, when state is 'file'
    reason TEXT,                    -- why it is missing or refused
    stat TEXT,                      -- stat data when it was read (cache)
    checked_ns INTEGER NOT NULL,    -- when it was read (racily-clean guard)
    UNIQUE (project_id, path)
);

-- Each memory's newest evidence per source at its current revision, against the checkout:
-- 'unchanged', 'changed', 'missing' or 'inconclusive' (unreadable, a link, over 1 MiB);
-- 'unchecked' in a project's own index, which does not read checkouts.
CREATE VIEW evidence_state AS
SELECT
    n.project_id,                   -- projects.id
    n.project,                      -- the project's real path
    n.project_name,                 -- the project's name
    n.memory_id,                    -- the memory the evidence is for
    n.file,                         -- its memory file
    n.heading,                      -- its heading
    e.path,                         -- the source file, relative to the project root
    e.sha256 AS recorded,           -- the SHA-256 recorded with the evidence
    c.sha256 AS current,            -- the SHA-256 the checkout holds now
    CASE
        WHEN c.state IS NULL THEN 'unchecked'
        WHEN c.state = 'missing' THEN 'missing'
        WHEN c.state = 'refused' THEN 'inconclusive'
        WHEN c.sha256 = e.sha256 AND c.size = e.size THEN 'unchanged'
        ELSE 'changed'
    END AS state                    -- unchanged, changed, missing, inconclusive or unchecked
FROM notes AS n
JOIN files AS ef ON ef.project_id = n.project_id AND ef.kind = 'evidence'
JOIN evidence AS e ON e.file_id = ef.id AND e.memory_id = n.memory_id AND e.revision = n.revision
    AND e.line = (
        SELECT max(later.line) FROM evidence AS later
        WHERE later.file_id = e.file_id AND later.memory_id = e.memory_id
        AND later.revision = e.revision AND later.path = e.path
    )
LEFT JOIN checkout_files AS c ON c.project_id = n.project_id AND c.path = e.path;

-- Each receipt with what the index can tell of its eligibility (bmad-mem.md section 14):
-- 'superseded' or 'contradictory' (the store alone), 'stale-memory-section' (the section's
-- text changed), 'unavailable-or-ineligible-source' (no single section has that heading),
-- 'integrity-failure' (the id does not match; `mem outcomes` stops on it), else
-- 'needs-nexus-proof': only `mem outcomes` re-proves the Nexus run and decides.
CREATE VIEW receipt_state AS
SELECT
    f.project_id,                   -- projects.id
    p.path AS project,              -- the project's real path
    p.name AS project_name,         -- the project's name
    r.line,                         -- the receipt's line in outcomes.ndjson
    r.id,                           -- the receipt id
    r.memory_file,                  -- the memory file it anchors
    r.memory_heading,               -- the section heading it anchors
    CASE
        WHEN NOT r.intact THEN 'integrity-failure'
        WHEN r.relationship IS NOT NULL THEN r.relationship
        WHEN (SELECT count(*) FROM notes AS n WHERE n.project_id = f.project_id
              AND n.file = r.memory_file AND n.heading = r.memory_heading) <> 1
            THEN 'unavailable-or-ineligible-source'
        WHEN NOT EXISTS (SELECT 1 FROM notes AS n WHERE n.project_id = f.project_id
              AND n.file = r.memory_file AND n.heading = r.memory_heading
              AND n.revision = r.text_sha256)
            THEN 'stale-memory-section'
        ELSE 'needs-nexus-proof'
    END AS eligibility              -- what the index can tell of the receipt's eligibility
FROM receipts AS r JOIN files AS f ON f.id = r.file_id JOIN projects AS p ON p.id = f.project_id;

-- Notes whose current revision is retired (deviation D10), one row per applicable event:
-- an event applies while its memory, and for a supersession its successor, still has the
-- revision it names; the first applicable event of a revision (lowest line) decides.
CREATE VIEW retired AS
SELECT
    r.id,                           -- records.id of the note
    f.project_id,                   -- projects.id
    f.path AS file,                 -- the memory file
    r.ref AS heading,               -- the note's heading
    r.memory_id,                    -- the memory id
    l.line,                         -- the lifecycle event's line
    l.kind,                         -- superseded or retracted
    l.with_id AS superseded_by,     -- the successor's memory id (supersessions)
    l.reason,                       -- why
    l.ts                            -- when it was retired
FROM lifecycle AS l
JOIN files AS lf ON lf.id = l.file_id
JOIN files AS f ON f.project_id = lf.project_id AND f.path = l.memory_file
JOIN records AS r ON r.file_id = f.id AND r.kind = 'note' AND r.memory_id = l.memory_id
    AND r.revision = l.revision
WHERE l.intact
    AND (
        l.kind = 'retracted'
        OR EXISTS (
            SELECT 1 FROM records AS s JOIN files AS sf ON sf.id = s.file_id
            WHERE sf.project_id = lf.project_id AND s.memory_id = l.with_id
            AND s.revision = l.with_revision
        )
    );
