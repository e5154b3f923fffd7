"""The README quick start is exactly two command lines, and .ci/run runs the second."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quick_start_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:sh|bash|console)?\n(.*?)```", section, re.S)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_quick_start_has_exactly_two_command_lines() -> None:
    lines = quick_start_lines()
    assert len(lines) == 2
    assert "bandit-lan" in lines[0]
    assert "pytest" in lines[1] and "[test]" in lines[1]


def test_ci_runs_the_readme_test_line() -> None:
    # .ci/run prints the line it runs; stop it right there by asking bash to only echo.
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "README.md" in script
    probe = script.replace('exec bash -c "$line"', 'echo "$line"; exit 0')
    out = subprocess.run(["bash", "-c", probe], cwd=ROOT / ".ci", capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == quick_start_lines()[1]
