#!/usr/bin/env python3
"""Rebuild bench/amendments/ from git mirrors of the repositories in SOURCES.md.

    python bench/amendments/make_set.py MIRRORS_DIR

MIRRORS_DIR holds one bare git directory per repository, named `owner+name/repo`. Each
repository's decision folder becomes one project (`<slug>/.agents/memory/decisions.md`, its
records in number order, oldest first); PAIRS names the records its authors marked as
superseded or amended by a later one. Lines that carry those marks (status lines, "Superseded
by", "Amends", "supersedes") are removed, so that a measure has to find a pair by its subject.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# slug: (owner+name, commit, folder)
REPOSITORIES = {
    "govuk-aws": (
        "alphagov+govuk-aws",
        "81ee9f6e91fd8692fbf751ecf980c671c13aa3c0",
        "docs/architecture/decisions/",
    ),
    "cloud-platform": (
        "ministryofjustice+cloud-platform",
        "7f879f3af6cd39f8711ec99ee3b4d2163ff54024",
        "architecture-decision-record/",
    ),
    "fac": (
        "GSA-TTS+FAC",
        "fe766b09799c4c9f5ba231973aaf642c6cf21155",
        "docs/architecture/decisions/",
    ),
    "manage-get-gov": (
        "cisagov+manage.get.gov",
        "839b758608cc7a3f14fb30611c3f994b954dba24",
        "docs/architecture/decisions/",
    ),
    "nats": (
        "nats-io+nats-architecture-and-design",
        "f5f5126268f850017f049b53aef278dafc0dd401",
        "adr/",
    ),
    "brighter": (
        "BrighterCommand+Brighter",
        "4032a065b3d8f48106e115ebfa2cd8f7124ef1cd",
        "docs/adr/",
    ),
    "forms": ("alphagov+forms", "ae72f4b339970b2c84409d8a240f8dd3482b6136", "ADR/"),
    "modernisation-platform": (
        "ministryofjustice+modernisation-platform",
        "ed8a7936d0d18f09f9ed74671d4884b3adfdc1aa",
        "architecture-decision-record/",
    ),
    "zooniverse": (
        "zooniverse+front-end-monorepo",
        "43a43fe11897f259c6d94bb512d46196f8c50107",
        "docs/arch/",
    ),
    "dotcom-rendering": (
        "guardian+dotcom-rendering",
        "f72cb8fc59accf44e8628c29c1dd152db98b83a7",
        "dotcom-rendering/docs/architecture/",
    ),
    "james": ("apache+james-project", "20bf8083e39be4a750f606e576a162087bb3f18a", "src/adr/"),
}
# slug: [(older file, newer file)], as the authors marked them.
PAIRS = {
    "govuk-aws": [
        ("0003-aws-networking-outline.md", "0033-ip-ranges.md"),
        ("0004-dns-definitions-for-hosts-and-services.md", "0015-dns-infrastructure.md"),
        ("0010-terraform-directory-structure.md", "0017-terraform-data-structure.md"),
    ],
    "cloud-platform": [("021-Multi-cluster.md", "036-multi-cluster.md")],
    "fac": [
        ("0014-compliance-documentation.md", "0025-compliance-documentation.md"),
        ("0006-uei.md", "0028-uei-required.md"),
        ("0010-use-sam-api-for-uei-validation.md", "0028-uei-required.md"),
        ("0018-uei-and-missing-data.md", "0028-uei-required.md"),
        ("0026-samgov-integration.md", "0028-uei-required.md"),
    ],
    "manage-get-gov": [("0012-user-models.md", "0020-user-models-revisited-plus-whois.md")],
    "nats": [("ADR-15.md", "ADR-37.md")],
    "brighter": [
        ("0053-box-database-migration.md", "0057-box-schema-versioning-and-migrations.md")
    ],
    "forms": [
        ("ADR002-use-govuk-notify.md", "ADR019-use-amazon-ses.md"),
        ("ADR003-use-govuk-signon.md", "ADR015-idp-authentication.md"),
        ("ADR004-store-form-schemas-in-an-api.md", "ADR045-remove-forms-api.md"),
        (
            "ADR013-use-paper-trail-gem-for-auditing-and-record-backups.md",
            "ADR025-remove-papertrail.md",
        ),
        (
            "ADR007-store-form-text-data-as-objects.md",
            "ADR044-translate-api-response-at-request-time.md",
        ),
        (
            "ADR043-use-mobility-with-column-strategy.md",
            "ADR046-use-mobility-table-backend-strategy.md",
        ),
    ],
    "modernisation-platform": [
        ("0004-use-bash-node-python-as-core-languages.md", "0019-use-bash-go-as-core-languages.md")
    ],
    "zooniverse": [("adr-15.md", "adr-22.md"), ("adr-18.md", "adr-34.md")],
    "dotcom-rendering": [("016-react-context-api.md", "028-react-context-api.md")],
    "james": [
        ("0003-distributed-workqueue.md", "0016-distributed-workqueue.md"),
        ("0014-blobstore-storage-policies.md", "0025-cassandra-blob-store-cache.md"),
        (
            "0026-removing-configured-additional-mailboxListeners.md",
            "0035-distributed-listeners-configuration.md",
        ),
        ("0026-removing-configured-additional-mailboxListeners.md", "0038-distributed-eventbus.md"),
    ],
}
# Records kept outside the folder (its authors moved superseded ones to a subfolder).
EXTRA = {"dotcom-rendering": ["historic-adrs/016-react-context-api.md"]}
SKIP = re.compile(
    r"readme|template|index|record-architecture-decisions|architecture-decision-records\.md|^adr_template",
    re.I,
)
MARKS = re.compile(
    r"supersed|superseed|superced|amend|⌛|♻|^\W*status\W*:|deprecated in favou?r", re.I
)
MAX_CHARS = 1500


def number(name: str) -> tuple[int, str]:
    found = re.search(r"\d+", name)
    return (int(found.group(0)) if found else 10**6, name)


def note(raw: str, fallback: str) -> tuple[str, str]:
    text = re.sub(r"\A---\n.*?\n---\n", "", raw, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    title, lines = None, []
    status = False
    for line in text.splitlines():
        stripped = line.strip()
        if title is None and stripped.startswith("# "):
            title = stripped[2:]
            continue
        heading = re.match(r"#+\s*(.*)", stripped)
        if heading and heading.group(1).strip().lower() == "status":
            status = True
            continue
        if status and (heading or not stripped):
            status = status and not heading
            if heading:
                status = False
            else:
                continue
        if status:
            continue
        if (
            MARKS.search(stripped)
            or stripped.startswith(("|", "![", "<"))
            or re.match(r"\W*(date|introduced|author|deciders?)\W*:", stripped, re.I)
        ):
            continue
        stripped = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", stripped)
        if heading:
            stripped = heading.group(1)
        lines.append(stripped)
    title = title or fallback
    title = re.sub(r"^(ADR[-\s]?)?\d+[.:]?\s*[-—:.]?\s*", "", title, flags=re.I).strip() or fallback
    body = " ".join(" ".join(lines).split())
    if len(body) > MAX_CHARS:
        cut = body[:MAX_CHARS]
        end = cut.rfind(". ")
        body = cut[: end + 1] if end > 200 else cut
    return title, body


def main() -> None:
    mirrors = Path(sys.argv[1])
    pairs = []
    for slug, (mirror, commit, folder) in REPOSITORIES.items():
        git = str(mirrors / mirror / "repo")
        names = subprocess.run(
            ["git", "--git-dir", git, "ls-tree", "--name-only", commit, folder],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        files = [n[len(folder) :] for n in names if n.endswith(".md")] + EXTRA.get(slug, [])
        files = sorted(
            (f for f in files if not SKIP.search(f)), key=lambda f: number(f.rsplit("/", 1)[-1])
        )
        headings: dict[str, str] = {}
        sections = []
        for name in files:
            raw = subprocess.run(
                ["git", "--git-dir", git, "show", f"{commit}:{folder}{name}"],
                capture_output=True,
                check=True,
            ).stdout.decode("utf-8", "replace")
            title, body = note(raw, name[:-3])
            if len(body) < 80:
                continue
            heading, n = title, 2
            while heading in headings.values():
                heading, n = f"{title} ({n})", n + 1
            headings[name] = heading
            sections.append(f"### {heading}\n{body}\n")
        out = HERE / slug / ".agents" / "memory"
        out.mkdir(parents=True, exist_ok=True)
        (out / "decisions.md").write_text("# Decisions\n\n" + "\n".join(sections), encoding="utf-8")
        for older, newer in PAIRS.get(slug, []):
            older = next((f for f in headings if f.endswith(older)), older)
            if older not in headings or newer not in headings:
                print(f"skipped pair {slug}: {older} -> {newer}", file=sys.stderr)
                continue
            pairs.append(
                {
                    "project": slug,
                    "older": headings[older],
                    "newer": headings[newer],
                    "olderFile": older,
                    "newerFile": newer,
                }
            )
        print(f"{slug}: {len(sections)} records")
    (HERE / "pairs.json").write_text(
        json.dumps(pairs, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"{len(pairs)} pairs")


if __name__ == "__main__":
    main()
