"""Codex code-mode cells read as the tool they call. The inputs are cells of a real rollout
(aliAjax/webdev-task-flowdesk-studio-6c029b8 @26d992fb, trajectory.jsonl; bench/readers4), cut short."""

from __future__ import annotations

from logsleuth.ingest.codex_cells import cell_call

EXEC = ('const r = await tools.exec_command({cmd:"head -3 src/styles.css; ls playwright.config.ts tests 2>/dev/null || true",'
        '"workdir":"/root/hutubo/flowdesk-studio","yield_time_ms":10000,"max_output_tokens":2000}); text(r.output)\n')
PATCH = ('const patch = "*** Begin Patch\\n*** Update File: playwright.config.ts\\n@@\\n-import {defineConfig} from '
         "'@playwright/test';\\n+import {defineConfig,devices} from '@playwright/test';\\n*** End Patch\";\n"
         "text(await tools.apply_patch(patch));\n")
STDIN = 'const r = await tools.write_stdin({session_id:53671,chars:"",yield_time_ms:1000,max_output_tokens:12000}); text(r.output);\n'


def test_an_exec_command_cell_is_its_command() -> None:
    assert cell_call(EXEC) == ("exec_command", "head -3 src/styles.css; ls playwright.config.ts tests 2>/dev/null || true")


def test_an_apply_patch_cell_is_its_patch_unescaped() -> None:
    tool, patch = cell_call(PATCH) or ("", "")
    assert tool == "apply_patch"
    assert patch.startswith("*** Begin Patch\n*** Update File: playwright.config.ts\n")
    assert "+import {defineConfig,devices} from '@playwright/test';" in patch


def test_other_cells_stay_cells() -> None:
    assert cell_call(STDIN) is None
    assert cell_call("text(1)") is None
