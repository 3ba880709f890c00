"""A note of a CRLF file (issue 35 item 12): its carriage returns are its editor's, not the
note's. The reference's rankings' `recall --json` keeps them, as the reference returns
them (golden case 08 pins it); mem's own views (bm25, MCP) never show them."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import RunMem

from mem.mcp import tools

CRLF_NOTES = b"### Queue choice\r\nUse kafka.\r\nPartition by tenant.\r\n"


def _texts(output: str) -> list[str]:
    return [result["text"] for result in json.loads(output)["results"]]


def test_bm25_and_mcp_recall_show_no_carriage_return(project: Path, run_mem: RunMem) -> None:
    (project / ".agents/memory/decisions.md").write_bytes(CRLF_NOTES)
    lexical = run_mem("recall", "kafka", "--json", cwd=project)
    assert _texts(lexical.stdout) == ["Queue choice\nUse kafka.\r\nPartition by tenant."]
    bm25 = run_mem("recall", "kafka", "--ranking", "bm25", "--json", cwd=project)
    assert _texts(bm25.stdout) == ["Queue choice\nUse kafka.\nPartition by tenant."]
    for ranking in ("lexical", "bm25"):
        answer = tools.BY_NAME["recall"].run(str(project), {"query": "kafka", "ranking": ranking})
        assert _texts(answer.output) == ["Queue choice\nUse kafka.\nPartition by tenant."]
