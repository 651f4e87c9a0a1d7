"""The pipeline imports one way and has no import cycle (tools/importgraph.py), apart from the
debts it lists, which may only shrink (none are left)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_new_cycle_or_upward_import() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "importgraph.py")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_checker_finds_a_cycle_and_an_upward_import(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import importgraph
    finally:
        sys.path.pop(0)
    assert importgraph.cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert importgraph.layer("logsleuth.search.cli") > importgraph.layer("logsleuth.search.engine")
    assert importgraph.layer("logsleuth.index.rows") == importgraph.layer("logsleuth.index")
    assert importgraph.layer("logsleuth.index.sidecar") < importgraph.layer("logsleuth.search.sidecar")
    assert importgraph.layer("logsleuth.model") < importgraph.layer("logsleuth.link.chain")
    pkg = tmp_path / "logsleuth"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text("from logsleuth.link import chain\n")
    (pkg / "link").mkdir()
    (pkg / "link" / "__init__.py").write_text("")
    (pkg / "link" / "chain.py").write_text("def f():\n    from logsleuth import model\n")
    importgraph.ROOT = tmp_path
    mods = importgraph.modules()
    _graph, upward, cyc = importgraph.check(mods)
    assert any("logsleuth.model (vocabulary) imports logsleuth.link.chain" in u for u in upward)
    assert ["logsleuth.link.chain", "logsleuth.model"] in cyc
