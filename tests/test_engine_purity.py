"""The engine is a pure core: no I/O, clocks, randomness, crypto or networking imports."""

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"
# the project's list, and nothing that reaches the system either
IMPURE = {
    "trio", "socket", "ssl", "asyncio", "time", "random", "secrets", "nacl", "cryptography",
    "prompt_toolkit", "zeroconf",
}  # fmt: skip
FORBIDDEN = IMPURE | {"os", "subprocess", "threading", "select", "datetime", "shutil", "tempfile", "p2p", "cli"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_engine_modules_import_nothing_impure() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) >= 10
    for path in files:
        bad = imported_modules(path) & FORBIDDEN
        assert not bad, f"{path.relative_to(ENGINE.parent)} imports {sorted(bad)}"


def test_importing_the_engine_loads_no_impure_module() -> None:
    probe = (
        "import sys; before = set(sys.modules); import engine; "
        f"print(sorted(m for m in set(sys.modules) - before if m.split('.')[0] in {sorted(IMPURE | {'threading'})!r}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ENGINE.parent)
    assert out.stdout.strip() == "[]"
